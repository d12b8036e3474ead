// @ts-check
import { DEFAULT_PREFS } from './defaults.js';
import { PrefsError } from './errors.js';
import { isPlainObject } from './validate.js';

/**
 * Apply a user's partial update to their current preferences. Top-level sections are merged one
 * level deep: `{ display: { theme: 'dark' } }` keeps the other display settings.
 * @param {import('./defaults.js').Prefs} current
 * @param {Record<string, unknown>} patch
 * @returns {import('./defaults.js').Prefs}
 */
export function applyOverrides(current, patch) {
  /** @type {Record<string, unknown>} */
  const next = structuredClone(current);
  for (const section of Object.keys(patch)) {
    if (!Object.hasOwn(DEFAULT_PREFS, section)) throw new PrefsError(`unknown preference "${section}"`, section);
    const value = patch[section];
    const existing = next[section];
    next[section] = isPlainObject(existing) && isPlainObject(value) ? { ...existing, ...value } : value;
  }
  return /** @type {import('./defaults.js').Prefs} */ (next);
}

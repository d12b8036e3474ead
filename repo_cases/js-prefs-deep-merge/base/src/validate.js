// @ts-check
import { DEFAULT_PREFS, ENUMS } from './defaults.js';
import { PrefsError } from './errors.js';

/** @param {unknown} v @returns {v is Record<string, unknown>} */
export function isPlainObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * Check a full preferences object against the schema in DEFAULT_PREFS.
 * @param {unknown} prefs
 * @param {unknown} [schema]
 * @param {string} [path]
 */
export function validatePrefs(prefs, schema = DEFAULT_PREFS, path = '') {
  if (!isPlainObject(prefs) || !isPlainObject(schema)) throw new PrefsError(`"${path}" must be an object`, path);
  for (const key of Object.keys(prefs)) {
    const here = path ? `${path}.${key}` : key;
    if (!Object.hasOwn(schema, key)) throw new PrefsError(`unknown preference "${here}"`, here);
    const expected = schema[key];
    const value = prefs[key];
    if (isPlainObject(expected)) {
      validatePrefs(value, expected, here);
      continue;
    }
    if (typeof value !== typeof expected) throw new PrefsError(`"${here}" must be a ${typeof expected}`, here);
    const allowed = /** @type {Record<string, string[]>} */ (ENUMS)[here];
    if (allowed && !allowed.includes(/** @type {string} */ (value))) {
      throw new PrefsError(`"${here}" must be one of ${allowed.join(', ')}`, here);
    }
    if ((here.endsWith('.from') || here.endsWith('.to')) && !TIME.test(String(value))) {
      throw new PrefsError(`"${here}" must be HH:MM`, here);
    }
  }
}

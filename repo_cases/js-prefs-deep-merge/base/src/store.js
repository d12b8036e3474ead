// @ts-check
import { DEFAULT_PREFS } from './defaults.js';
import { applyOverrides } from './merge.js';
import { validatePrefs, isPlainObject } from './validate.js';
import { PrefsError } from './errors.js';

export class PrefsStore {
  constructor() {
    /** @type {Map<string, import('./defaults.js').Prefs>} */
    this.byUser = new Map();
  }

  /** @param {string} userId */
  get(userId) {
    return this.byUser.get(userId) ?? DEFAULT_PREFS;
  }

  /**
   * @param {string} userId
   * @param {unknown} patch  parsed request body
   */
  update(userId, patch) {
    if (!isPlainObject(patch)) throw new PrefsError('body must be a JSON object', '');
    const next = applyOverrides(this.get(userId), patch);
    validatePrefs(next);
    this.byUser.set(userId, next);
    return next;
  }

  /** @param {string} userId */
  reset(userId) {
    this.byUser.delete(userId);
  }
}

// @ts-check

export class PrefsError extends Error {
  /** @param {string} message @param {string} path */
  constructor(message, path) {
    super(message);
    this.name = 'PrefsError';
    this.path = path;
  }
}

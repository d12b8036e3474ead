// @ts-check

export class BadRequestError extends Error {
  /** @param {string} message @param {string} param */
  constructor(message, param) {
    super(message);
    this.name = 'BadRequestError';
    this.param = param;
  }
}

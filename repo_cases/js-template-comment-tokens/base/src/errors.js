// @ts-check

export class TemplateError extends Error {
  /**
   * @param {string} message
   * @param {number} line  1-based line in the template source
   */
  constructor(message, line) {
    super(`line ${line}: ${message}`);
    this.name = 'TemplateError';
    this.line = line;
  }
}

/**
 * @param {never} value
 * @param {number} line
 * @returns {never}
 */
export function unreachable(value, line) {
  throw new TemplateError(`unexpected ${JSON.stringify(value)}`, line);
}

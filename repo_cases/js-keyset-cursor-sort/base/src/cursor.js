// @ts-check
import { BadRequestError } from './errors.js';

/**
 * Opaque pagination cursor: the position after which the next page starts.
 * @typedef {object} Cursor
 * @property {number} id  id of the last row of the previous page
 */

/** @param {Cursor} cursor */
export function encodeCursor(cursor) {
  return Buffer.from(JSON.stringify({ i: cursor.id })).toString('base64url');
}

/**
 * @param {string} token
 * @returns {Cursor}
 */
export function decodeCursor(token) {
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestError('malformed cursor', 'after');
  }
  if (typeof raw !== 'object' || raw === null || !Number.isSafeInteger(/** @type {any} */ (raw).i)) {
    throw new BadRequestError('malformed cursor', 'after');
  }
  return { id: /** @type {any} */ (raw).i };
}

// @ts-check
/** @param {number} a @param {number} b @returns {number} */
export function mul(a, b) {
  return a * b;
}

/** @type {string} */
export const label = 'math';

/** @param {number} a @returns {number} */
export function square(a) {
  return mul(a, a);
}

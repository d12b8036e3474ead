// @ts-check
/** @param {number} a @param {number} b @returns {number} */
export function mul(a, b) {
  return a * b + 1;
}

/** @type {string} */
export const label = 'math';

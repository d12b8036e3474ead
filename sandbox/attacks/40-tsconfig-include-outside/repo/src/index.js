// @ts-check
/** @type {number} */
export const n = "not a number";

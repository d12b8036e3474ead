// @ts-check

/** @typedef {{ now(): number }} Clock */

/** @type {Clock} */
export const systemClock = { now: () => Date.now() };

/**
 * A clock that only moves when told to.
 * @param {number} [start]
 */
export function manualClock(start = 0) {
  let t = start;
  return {
    now: () => t,
    /** @param {number} ms */
    advance(ms) {
      t += ms;
    },
    /** @param {number} ms */
    set(ms) {
      t = ms;
    },
  };
}

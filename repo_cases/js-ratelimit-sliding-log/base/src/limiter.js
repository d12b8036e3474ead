// @ts-check
import { systemClock } from './clock.js';

/**
 * @typedef {object} Decision
 * @property {boolean} allowed
 * @property {number} limit
 * @property {number} remaining     requests still allowed in the current window
 * @property {number} resetAt       epoch ms when the count next goes down
 * @property {number} retryAfterMs  0 when allowed
 */

/**
 * @typedef {object} Limiter
 * @property {(key: string, policy: import('./policies.js').Policy) => Decision} check
 * @property {(key: string) => void} reset
 * @property {() => number} size
 */

/**
 * Fixed-window counter per key. The window opens with the key's first request.
 * @param {{ clock?: import('./clock.js').Clock, maxKeys?: number }} [options]
 * @returns {Limiter}
 */
export function createLimiter(options = {}) {
  const clock = options.clock ?? systemClock;
  const maxKeys = options.maxKeys ?? 100_000;
  /** @type {Map<string, { start: number, count: number }>} */
  const windows = new Map();

  /** @param {number} now @param {number} windowMs */
  function sweep(now, windowMs) {
    for (const [key, w] of windows) {
      if (now - w.start >= windowMs) windows.delete(key);
      if (windows.size < maxKeys) break;
    }
  }

  return {
    check(key, policy) {
      const now = clock.now();
      let w = windows.get(key);
      if (!w || now - w.start >= policy.windowMs) {
        if (!w && windows.size >= maxKeys) sweep(now, policy.windowMs);
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      const resetAt = w.start + policy.windowMs;
      if (w.count >= policy.limit) {
        return { allowed: false, limit: policy.limit, remaining: 0, resetAt, retryAfterMs: resetAt - now };
      }
      w.count += 1;
      return { allowed: true, limit: policy.limit, remaining: policy.limit - w.count, resetAt, retryAfterMs: 0 };
    },
    reset(key) {
      windows.delete(key);
    },
    size() {
      return windows.size;
    },
  };
}

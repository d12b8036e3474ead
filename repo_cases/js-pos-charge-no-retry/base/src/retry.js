// @ts-check
import { AcquirerError } from './errors.js';

/**
 * @template T
 * @param {() => Promise<T>} fn
 * @param {{ delaysMs?: number[], sleep?: (ms: number) => Promise<void> }} [options]
 *   one retry per entry in delaysMs
 * @returns {Promise<T>}
 */
export async function withRetry(fn, options = {}) {
  const delays = options.delaysMs ?? [200, 800];
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const retryable = err instanceof AcquirerError && err.retryable;
      if (!retryable || attempt >= delays.length) throw err;
      await sleep(delays[attempt]);
    }
  }
}

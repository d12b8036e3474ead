// @ts-check
import { TimeoutError } from '../src/errors.js';

/**
 * @param {Array<'timeout' | number | Record<string, unknown>>} script  per call: a timeout, a status, or a 200 body
 */
export function scriptedTransport(script) {
  /** @type {string[]} */
  const calls = [];
  /** @type {import('../src/acquirer.js').Transport} */
  const transport = async (path) => {
    calls.push(path);
    const step = script.shift();
    if (step === undefined) throw new Error('unexpected call ' + path);
    if (step === 'timeout') throw new TimeoutError(path);
    if (typeof step === 'number') return { status: step, json: {} };
    return { status: 200, json: step };
  };
  return { transport, calls };
}

import test from 'node:test';
import assert from 'node:assert/strict';
import { withRetry } from '../src/retry.js';
import { AcquirerError } from '../src/errors.js';

const noSleep = { sleep: async () => {} };

test('retries retryable errors with the given delays', async () => {
  /** @type {number[]} */
  const slept = [];
  let calls = 0;
  const value = await withRetry(async () => {
    calls++;
    if (calls < 3) throw new AcquirerError('busy', { code: 'upstream', retryable: true });
    return 'ok';
  }, { delaysMs: [10, 20], sleep: async (ms) => { slept.push(ms); } });
  assert.equal(value, 'ok');
  assert.deepEqual(slept, [10, 20]);
});

test('does not retry other errors', async () => {
  let calls = 0;
  await assert.rejects(withRetry(async () => {
    calls++;
    throw new AcquirerError('bad card', { code: 'invalid_card', retryable: false });
  }, noSleep), /bad card/);
  assert.equal(calls, 1);
});

test('gives up after the last delay', async () => {
  let calls = 0;
  await assert.rejects(withRetry(async () => {
    calls++;
    throw new AcquirerError('busy', { code: 'upstream', retryable: true });
  }, { delaysMs: [1], ...noSleep }), /busy/);
  assert.equal(calls, 2);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { parsePolicy, policyTable } from '../src/policies.js';

test('parses common policy strings', () => {
  assert.deepEqual(parsePolicy('100/min'), { limit: 100, windowMs: 60_000 });
  assert.deepEqual(parsePolicy('5/s'), { limit: 5, windowMs: 1000 });
  assert.deepEqual(parsePolicy(' 30 / 10s '), { limit: 30, windowMs: 10_000 });
  assert.deepEqual(parsePolicy('1000/hour'), { limit: 1000, windowMs: 3_600_000 });
});

test('rejects malformed policies', () => {
  assert.throws(() => parsePolicy('fast'), /invalid rate policy/);
  assert.throws(() => parsePolicy('10/fortnight'), /unknown time unit/);
  assert.throws(() => parsePolicy('0/s'), /must be positive/);
  assert.throws(() => parsePolicy('5/constructor'), /unknown time unit/);
});

test('plans fall back to the default policy', () => {
  const policyFor = policyTable({ pro: '600/min' }, '60/min');
  assert.equal(policyFor('pro').limit, 600);
  assert.equal(policyFor('free').limit, 60);
  assert.equal(policyFor(undefined).limit, 60);
});

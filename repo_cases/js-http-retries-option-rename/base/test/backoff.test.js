import test from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, retryAfterMs } from '../src/backoff.js';

test('backoff grows exponentially up to a cap', () => {
  const top = () => 0.999999;
  assert.equal(backoffDelay(0, 100, top), 99);
  assert.equal(backoffDelay(3, 100, top), 799);
  assert.equal(backoffDelay(20, 100, top), 9999);
  assert.equal(backoffDelay(5, 100, () => 0), 0);
});

test('reads Retry-After in seconds or as a date', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs('Mon, 01 Jan 2024 00:00:03 GMT', now), 3000);
  assert.equal(retryAfterMs('3600', now), 10_000);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(undefined, now), null);
});

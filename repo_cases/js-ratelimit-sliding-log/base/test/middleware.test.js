import test from 'node:test';
import assert from 'node:assert/strict';
import { rateLimit } from '../src/middleware.js';
import { createLimiter } from '../src/limiter.js';
import { manualClock } from '../src/clock.js';
import { policyTable } from '../src/policies.js';

/** @param {Record<string, string>} [headers] */
const req = (headers = {}) => ({ headers, remoteAddress: '203.0.113.9' });

test('sets rate limit headers on allowed requests', () => {
  const clock = manualClock(1_700_000_000_000);
  const limit = rateLimit({ limiter: createLimiter({ clock }), policyFor: policyTable({}, '3/min') });
  const out = limit(req());
  assert.equal(out.reject, null);
  assert.equal(out.headers['x-ratelimit-limit'], '3');
  assert.equal(out.headers['x-ratelimit-remaining'], '2');
  assert.equal(out.headers['x-ratelimit-reset'], String(1_700_000_060));
});

test('rejects with 429 and a whole-second Retry-After', () => {
  const clock = manualClock(0);
  const limit = rateLimit({ limiter: createLimiter({ clock }), policyFor: policyTable({}, '1/10s') });
  limit(req());
  clock.advance(2500);
  const out = limit(req());
  assert.equal(out.reject?.status, 429);
  assert.equal(out.reject?.headers['retry-after'], '8');
});

test('limits by plan', () => {
  const limit = rateLimit({
    limiter: createLimiter({ clock: manualClock(0) }),
    policyFor: policyTable({ pro: '5/min' }, '1/min'),
    planOf: (r) => r.headers['x-plan'],
  });
  assert.equal(limit(req({ 'x-plan': 'pro' })).headers['x-ratelimit-limit'], '5');
  assert.equal(limit(req()).headers['x-ratelimit-limit'], '1');
});

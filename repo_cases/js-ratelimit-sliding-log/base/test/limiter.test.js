import test from 'node:test';
import assert from 'node:assert/strict';
import { createLimiter } from '../src/limiter.js';
import { manualClock } from '../src/clock.js';

const policy = { limit: 2, windowMs: 1000 };

test('allows up to the limit, then rejects', () => {
  const clock = manualClock(10_000);
  const l = createLimiter({ clock });
  assert.equal(l.check('a', policy).allowed, true);
  assert.equal(l.check('a', policy).allowed, true);
  assert.equal(l.check('a', policy).allowed, false);
});

test('reports remaining requests and when to retry', () => {
  const clock = manualClock(10_000);
  const l = createLimiter({ clock });
  assert.equal(l.check('a', policy).remaining, 1);
  assert.equal(l.check('a', policy).remaining, 0);
  clock.advance(400);
  const denied = l.check('a', policy);
  assert.equal(denied.remaining, 0);
  assert.equal(denied.retryAfterMs, 600);
  assert.equal(denied.resetAt, 11_000);
});

test('admits again once a full window has passed', () => {
  const clock = manualClock(10_000);
  const l = createLimiter({ clock });
  l.check('a', policy);
  l.check('a', policy);
  clock.advance(999);
  assert.equal(l.check('a', policy).allowed, false);
  clock.advance(1);
  const next = l.check('a', policy);
  assert.equal(next.allowed, true);
  assert.equal(next.remaining, 1);
});

test('keys are limited independently', () => {
  const l = createLimiter({ clock: manualClock(0) });
  l.check('a', policy);
  l.check('a', policy);
  assert.equal(l.check('a', policy).allowed, false);
  assert.equal(l.check('b', policy).allowed, true);
});

test('reset forgets a key', () => {
  const l = createLimiter({ clock: manualClock(0) });
  l.check('a', policy);
  l.check('a', policy);
  l.reset('a');
  assert.equal(l.check('a', policy).allowed, true);
});

test('drops expired keys when the key table is full', () => {
  const clock = manualClock(0);
  const l = createLimiter({ clock, maxKeys: 2 });
  l.check('a', policy);
  l.check('b', policy);
  clock.advance(5000);
  l.check('c', policy);
  assert.ok(l.size() <= 2);
});

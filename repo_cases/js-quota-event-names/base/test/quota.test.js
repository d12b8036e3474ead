import test from 'node:test';
import assert from 'node:assert/strict';
import { Bus } from '../src/bus.js';
import { QuotaTracker } from '../src/quota.js';

function setup() {
  const bus = new Bus();
  /** @type {[string, Record<string, any>][]} */
  const events = [];
  for (const name of ['quotaWarning', 'quotaExceeded']) bus.on(name, (p) => events.push([name, p]));
  const quota = new QuotaTracker(bus, () => ({ plan: 'team', limitBytes: 1000 }));
  return { quota, events };
}

test('reserves within the limit', () => {
  const { quota, events } = setup();
  assert.equal(quota.reserve('t1', 500), true);
  assert.equal(quota.usage('t1'), 500);
  assert.deepEqual(events, []);
});

test('warns once when usage crosses 80%', () => {
  const { quota, events } = setup();
  quota.reserve('t1', 790);
  quota.reserve('t1', 10);
  quota.reserve('t1', 10);
  assert.deepEqual(events, [['quotaWarning', { tenant: 't1', plan: 'team', limitBytes: 1000, usedBytes: 800 }]]);
});

test('refuses and reports reservations over the limit', () => {
  const { quota, events } = setup();
  quota.reserve('t1', 700);
  assert.equal(quota.reserve('t1', 301), false);
  assert.equal(quota.usage('t1'), 700);
  assert.deepEqual(events.at(-1), ['quotaExceeded', { tenant: 't1', plan: 'team', limitBytes: 1000, usedBytes: 700, requestedBytes: 301 }]);
});

test('warning re-arms after usage drops', () => {
  const { quota, events } = setup();
  quota.reserve('t1', 900);
  quota.release('t1', 500);
  quota.reserve('t1', 450);
  assert.equal(events.filter(([n]) => n === 'quotaWarning').length, 2);
});

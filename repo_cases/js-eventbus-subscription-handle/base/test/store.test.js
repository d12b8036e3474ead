import test from 'node:test';
import assert from 'node:assert/strict';
import { createBus } from '../src/bus.js';
import { Store } from '../src/store.js';

test('select fires only for the keys it watches', () => {
  const store = new Store(createBus(), { theme: 'light', range: '1d', symbol: 'ACME' });
  /** @type {string[]} */
  const seen = [];
  store.select(['range'], (s) => seen.push(s.range));
  store.update({ theme: 'dark' });
  store.update({ range: '5d' });
  store.update({ range: '5d' });
  assert.deepEqual(seen, ['5d']);
});

test('a selection can be stopped', () => {
  const store = new Store(createBus(), { n: 0 });
  let calls = 0;
  const stop = store.select(['n'], () => calls++);
  store.update({ n: 1 });
  stop();
  store.update({ n: 2 });
  assert.equal(calls, 1);
  assert.equal(store.state.n, 2);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { TagCache } from '../src/cache.js';

function setup(options = {}) {
  const clock = { t: 0 };
  /** @type {string[]} */
  const evicted = [];
  /** @type {TagCache<number>} */
  const cache = new TagCache({ now: () => clock.t, onEvict: (k, r) => evicted.push(`${k}:${r}`), ...options });
  return { cache, clock, evicted };
}

test('stores and expires values', () => {
  const { cache, clock, evicted } = setup({ defaultTtlMs: 100 });
  cache.set('a', 1);
  assert.equal(cache.get('a'), 1);
  clock.t = 100;
  assert.equal(cache.get('a'), undefined);
  assert.deepEqual(evicted, ['a:expired']);
});

test('evicts the least recently used entry beyond capacity', () => {
  const { cache, evicted } = setup({ maxEntries: 2 });
  cache.set('a', 1).set('b', 2);
  cache.get('a');
  cache.set('c', 3);
  assert.deepEqual([...cache.entries.keys()], ['a', 'c']);
  assert.deepEqual(evicted, ['b:capacity']);
});

test('invalidate drops one key', () => {
  const { cache, evicted } = setup();
  cache.set('a', 1, { tags: ['t'] });
  assert.equal(cache.invalidate('a'), true);
  assert.equal(cache.invalidate('a'), false);
  assert.equal(cache.stats().tags, 0);
  assert.deepEqual(evicted, ['a:explicit']);
});

test('invalidateTag drops every tagged key', () => {
  const { cache } = setup();
  cache.set('a', 1, { tags: ['red', 'big'] }).set('b', 2, { tags: ['red'] }).set('c', 3, { tags: ['big'] });
  assert.equal(cache.invalidateTag('red'), 2);
  assert.deepEqual([...cache.entries.keys()], ['c']);
  assert.equal(cache.invalidateTag('red'), 0);
});

test('re-setting a key replaces its tags', () => {
  const { cache } = setup();
  cache.set('a', 1, { tags: ['old'] });
  cache.set('a', 2, { tags: ['new'] });
  assert.equal(cache.invalidateTag('old'), 0);
  assert.equal(cache.get('a'), 2);
});

test('counts hits, misses and evictions', () => {
  const { cache, clock } = setup({ defaultTtlMs: 10 });
  cache.set('a', 1).set('b', 2);
  cache.get('a');
  cache.get('zzz');
  clock.t = 50;
  assert.equal(cache.prune(), 2);
  assert.deepEqual(cache.stats(), { size: 0, tags: 0, hits: 1, misses: 1, evictions: 2 });
});

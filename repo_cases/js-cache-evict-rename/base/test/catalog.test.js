import test from 'node:test';
import assert from 'node:assert/strict';
import { TagCache } from '../src/cache.js';
import { CatalogService } from '../src/catalog.js';

function setup() {
  /** @type {Map<number, import('../src/catalog.js').Product>} */
  const rows = new Map([
    [1, { id: 1, name: 'Lamp', category: 'lighting', price: 4900 }],
    [2, { id: 2, name: 'Bulb', category: 'lighting', price: 500 }],
  ]);
  let reads = 0;
  const db = {
    /** @param {number} id */
    async find(id) {
      reads++;
      return rows.get(id) ?? null;
    },
    /** @param {number} id @param {number} price */
    async savePrice(id, price) {
      const row = { .../** @type {import('../src/catalog.js').Product} */ (rows.get(id)), price };
      rows.set(id, row);
      return row;
    },
  };
  /** @type {TagCache<import('../src/catalog.js').Product>} */
  const cache = new TagCache();
  return { svc: new CatalogService(db, cache), reads: () => reads };
}

test('caches product lookups', async () => {
  const { svc, reads } = setup();
  await svc.product(1);
  await svc.product(1);
  assert.equal(reads(), 1);
  assert.equal(await svc.product(99), null);
});

test('a price change is visible on the next read', async () => {
  const { svc } = setup();
  await svc.product(1);
  await svc.updatePrice(1, 3900);
  assert.equal((await svc.product(1))?.price, 3900);
});

test('repricing a category drops its cached products', async () => {
  const { svc, reads } = setup();
  await svc.product(1);
  await svc.product(2);
  assert.equal(svc.categoryRepriced('lighting'), 2);
  await svc.product(1);
  assert.equal(reads(), 3);
});

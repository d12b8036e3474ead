import test from 'node:test';
import assert from 'node:assert/strict';
import { paginate } from '../src/paginate.js';
import { parseListQuery } from '../src/query.js';
import { products, resource } from './fixtures.js';

/**
 * Follow `next` cursors until the end; returns the ids of each page.
 * @param {Record<string, string>} params
 */
function walk(params) {
  /** @type {number[][]} */
  const pages = [];
  /** @type {string | null} */
  let after = null;
  do {
    const query = parseListQuery(after ? { ...params, after } : params, resource);
    const page = paginate(products, query);
    pages.push(page.items.map((p) => p.id));
    after = page.next;
  } while (after && pages.length < 20);
  return pages;
}

test('walks every row exactly once in id order', () => {
  assert.deepEqual(walk({ limit: '3' }), [[1, 2, 3], [4, 5, 6], [7]]);
});

test('applies filters before paginating', () => {
  assert.deepEqual(walk({ limit: '2', 'filter[category]': 'living' }), [[3, 4], [6]]);
});

test('the last page has no next cursor', () => {
  const page = paginate(products, parseListQuery({ limit: '7' }, resource));
  assert.equal(page.items.length, 7);
  assert.equal(page.next, null);
});

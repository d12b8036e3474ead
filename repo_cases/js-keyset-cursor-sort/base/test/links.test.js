import test from 'node:test';
import assert from 'node:assert/strict';
import { linkHeader } from '../src/links.js';

test('builds a next link that keeps the other parameters', () => {
  assert.equal(
    linkHeader('https://api.example.com/v1/products', { sort: '-price', 'filter[category]': 'living room' }, 'abc'),
    '<https://api.example.com/v1/products?after=abc&filter%5Bcategory%5D=living%20room&sort=-price>; rel="next"',
  );
});

test('no link on the last page', () => {
  assert.equal(linkHeader('https://x', {}, null), null);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { parseListQuery } from '../src/query.js';
import { resource } from './fixtures.js';

test('applies defaults', () => {
  assert.deepEqual(parseListQuery({}, resource), { limit: 25, sort: 'id', order: 'asc', filters: {}, after: null });
});

test('parses sort direction, filters and clamps the limit', () => {
  const q = parseListQuery({ sort: '-price', limit: '500', 'filter[category]': 'living' }, resource);
  assert.deepEqual(q, { limit: 100, sort: 'price', order: 'desc', filters: { category: 'living' }, after: null });
  assert.equal(parseListQuery({ limit: '0' }, resource).limit, 1);
});

test('rejects what the resource does not allow', () => {
  assert.throws(() => parseListQuery({ sort: 'cost' }, resource), /cannot sort by cost/);
  assert.throws(() => parseListQuery({ 'filter[secret]': 'x' }, resource), /cannot filter by secret/);
  assert.throws(() => parseListQuery({ limit: '-3' }, resource), /limit must be a positive integer/);
});

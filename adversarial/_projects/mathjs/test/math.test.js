import test from 'node:test';
import assert from 'node:assert/strict';
import { mul } from '../src/math.js';

test('mul multiplies', () => {
  assert.equal(mul(3, 4), 12);
});

test('mul by zero', () => {
  assert.equal(mul(3, 0), 0);
});

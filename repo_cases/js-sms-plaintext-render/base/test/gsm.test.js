import test from 'node:test';
import assert from 'node:assert/strict';
import { measure } from '../src/gsm.js';

test('plain text is GSM-7', () => {
  assert.deepEqual(measure('Your code is 1234.'), { encoding: 'GSM-7', units: 18, segments: 1 });
});

test('extension characters count double', () => {
  assert.equal(measure('Price: 5€ [sale]').units, 19);
});

test('long messages are split into 153-septet segments', () => {
  assert.equal(measure('a'.repeat(160)).segments, 1);
  assert.equal(measure('a'.repeat(161)).segments, 2);
  assert.equal(measure('a'.repeat(307)).segments, 3);
});

test('any other character switches to UCS-2', () => {
  assert.deepEqual(measure('Łódź'), { encoding: 'UCS-2', units: 4, segments: 1 });
  assert.equal(measure('ś'.repeat(71)).segments, 2);
});

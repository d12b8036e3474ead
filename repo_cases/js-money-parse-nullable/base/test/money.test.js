import test from 'node:test';
import assert from 'node:assert/strict';
import { parseAmount, formatAmount } from '../src/money.js';

test('parses amounts into minor units', () => {
  assert.equal(parseAmount('12.5', 'USD'), 1250);
  assert.equal(parseAmount('1,234.56', 'EUR'), 123456);
  assert.equal(parseAmount('-3', 'GBP'), -300);
  assert.equal(parseAmount('1500', 'JPY'), 1500);
  assert.equal(parseAmount('2.125', 'KWD'), 2125);
  assert.equal(parseAmount('$ 9.99', 'USD'), 999);
});

test('rejects text that is not an amount', () => {
  assert.throws(() => parseAmount('twelve', 'USD'), /not an amount/);
  assert.throws(() => parseAmount('1,23.00', 'USD'), /not an amount/);
  assert.throws(() => parseAmount('1.999', 'USD'), /at most 2 decimals/);
  assert.throws(() => parseAmount('10', 'XYZ'), /unsupported currency/);
});

test('formats minor units', () => {
  assert.equal(formatAmount(123456, 'USD'), '$1,234.56');
  assert.equal(formatAmount(-5, 'EUR'), '-€0.05');
  assert.equal(formatAmount(1500, 'JPY'), '¥1,500');
  assert.equal(formatAmount(2125, 'KWD'), 'KD2.125');
});

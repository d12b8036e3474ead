import test from 'node:test';
import assert from 'node:assert/strict';
import { parseQuickAdd } from '../src/quick-add.js';

const ctx = { defaultCurrency: 'USD', today: '2024-06-01' };

test('parses amount, currency, description and tags', () => {
  assert.deepEqual(parseQuickAdd('12.50 eur lunch with Sam #Food #team', ctx), {
    date: '2024-06-01', description: 'lunch with Sam', minor: -1250, currency: 'EUR', tags: ['food', 'team'],
  });
});

test('uses the default currency', () => {
  assert.equal(parseQuickAdd('3 coffee', ctx)?.currency, 'USD');
});

test('returns null for text that is not an expense', () => {
  assert.equal(parseQuickAdd('call mum', ctx), null);
  assert.equal(parseQuickAdd('5', ctx), null);
  assert.equal(parseQuickAdd('', ctx), null);
});

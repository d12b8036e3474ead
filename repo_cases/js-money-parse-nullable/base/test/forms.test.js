import test from 'node:test';
import assert from 'node:assert/strict';
import { validateExpense } from '../src/forms.js';

const form = { date: '2024-05-04', description: ' Train ticket ', amount: '23.40', currency: 'EUR', tags: 'Travel, work' };

test('accepts a valid expense', () => {
  const r = validateExpense(form);
  assert.deepEqual(r, {
    ok: true,
    entry: { date: '2024-05-04', description: 'Train ticket', minor: -2340, currency: 'EUR', tags: ['travel', 'work'] },
  });
});

test('explains what is wrong with each field', () => {
  const r = validateExpense({ date: '4 May', description: '', amount: 'lots', currency: 'EUR' });
  assert.equal(r.ok, false);
  assert.deepEqual(!r.ok && r.errors, { date: 'Use YYYY-MM-DD', description: 'Required', amount: 'Not a valid amount' });
});

test('refuses zero and negative amounts', () => {
  const r = validateExpense({ ...form, amount: '0' });
  assert.deepEqual(!r.ok && r.errors, { amount: 'Enter a positive amount' });
});

test('does not parse the amount for an unsupported currency', () => {
  const r = validateExpense({ ...form, currency: 'BTC' });
  assert.deepEqual(!r.ok && r.errors, { currency: 'Unsupported currency' });
});

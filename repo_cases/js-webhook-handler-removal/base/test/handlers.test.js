import test from 'node:test';
import assert from 'node:assert/strict';
import { registry } from '../src/handlers/index.js';
import { fakeDeps, event } from './fakes.js';

test('dunning escalates after three failed attempts', async () => {
  const deps = fakeDeps();
  await registry.flagDunning(event('invoice.payment_failed', { invoice: 'in_1', attempt_count: 1 }), deps);
  await registry.flagDunning(event('invoice.payment_failed', { invoice: 'in_1', attempt_count: 3 }), deps);
  assert.deepEqual(deps.calls, ['invoice in_1 -> past_due', 'invoice in_1 -> uncollectible']);
});

test('refunds are recorded as negative ledger entries', async () => {
  const deps = fakeDeps();
  await registry.recordRefund(event('charge.refunded', { charge: 'ch_2', amount_refunded: 250, currency: 'usd' }), deps);
  assert.deepEqual(deps.calls, ['ledger refund ch_2 -250 USD']);
});

test('accounting is mailed about paid invoices', async () => {
  const deps = fakeDeps();
  await registry.notifyAccounting(event('invoice.paid', { invoice: 'in_5' }), deps);
  assert.deepEqual(deps.calls, ['mail accounting@example.com | Invoice in_5 paid | Customer cus_1 paid 120.00 EUR.']);
});

test('accounting is mailed about refunds', async () => {
  const deps = fakeDeps();
  await registry.notifyAccounting(event('charge.refunded', { charge: 'ch_3', amount_refunded: 999, currency: 'gbp' }), deps);
  assert.deepEqual(deps.calls, ['mail accounting@example.com | Refund on ch_3 | Refunded 9.99 GBP on charge ch_3.']);
});

test('a missing invoice is logged, not mailed', async () => {
  const deps = fakeDeps();
  await registry.notifyAccounting(event('invoice.paid', { invoice: 'in_404' }), deps);
  assert.deepEqual(deps.calls, ['warn accounting: invoice in_404 not found']);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { createDispatcher } from '../src/dispatcher.js';
import { registry } from '../src/handlers/index.js';
import { fakeDeps, event } from './fakes.js';

const config = {
  source: 'test',
  routes: [
    { event: 'invoice.paid', handlers: ['markInvoicePaid'] },
    { event: 'customer.deleted', handlers: ['anonymizeCustomer'] },
  ],
};

test('runs the handlers routed for an event', async () => {
  const deps = fakeDeps();
  const dispatch = createDispatcher(config, registry, deps);
  assert.deepEqual(await dispatch(event('invoice.paid', { invoice: 'in_1' })), { status: 'done', failed: [] });
  assert.deepEqual(deps.calls, ['invoice in_1 -> paid']);
});

test('ignores events without a route', async () => {
  const dispatch = createDispatcher(config, registry, fakeDeps());
  assert.equal((await dispatch(event('payout.created', {}))).status, 'ignored');
});

test('processes each event id once', async () => {
  const deps = fakeDeps();
  const dispatch = createDispatcher(config, registry, deps);
  await dispatch(event('customer.deleted', { customer: 'cus_9' }, 'evt_7'));
  assert.equal((await dispatch(event('customer.deleted', { customer: 'cus_9' }, 'evt_7'))).status, 'duplicate');
  assert.deepEqual(deps.calls, ['anonymize cus_9']);
});

test('a failing handler makes the delivery fail so the provider retries', async () => {
  const deps = fakeDeps();
  const dispatch = createDispatcher({ source: 't', routes: [{ event: 'charge.refunded', handlers: ['recordRefund'] }] }, registry, deps);
  await assert.rejects(dispatch(event('charge.refunded', { charge: 'ch_1', amount_refunded: -5, currency: 'eur' })), /handlers failed: recordRefund/);
  const ok = await dispatch(event('charge.refunded', { charge: 'ch_1', amount_refunded: 500, currency: 'eur' }, 'evt_2'));
  assert.equal(ok.status, 'done');
});

test('refuses routes that name unknown handlers', () => {
  const bad = { source: 't', routes: [{ event: 'invoice.paid', handlers: ['markInvoicePaid', 'sendConfetti'] }] };
  assert.throws(() => createDispatcher(bad, registry, fakeDeps()), /route invoice.paid names unknown handler sendConfetti/);
  assert.throws(() => createDispatcher({ source: 't', routes: [{ event: 'x', handlers: ['toString'] }] }, registry, fakeDeps()), /unknown handler toString/);
});

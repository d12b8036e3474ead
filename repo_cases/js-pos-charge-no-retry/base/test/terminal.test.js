import test from 'node:test';
import assert from 'node:assert/strict';
import { createAcquirerClient } from '../src/acquirer.js';
import { takePayment } from '../src/terminal.js';
import { scriptedTransport } from './fake-acquirer.js';

const sale = { total: 1250, currency: 'EUR', receiptNo: 'R-2002' };

test('shows approval with the auth code', async () => {
  const { transport } = scriptedTransport([{ result: 'approved', transaction_id: 'tx_1', auth_code: '77Q' }]);
  const screen = await takePayment(createAcquirerClient({ transport, sleep: async () => {} }), sale, 'tok');
  assert.deepEqual(screen, { screen: 'approved', text: 'Approved 77Q', transactionId: 'tx_1' });
});

test('explains declines', async () => {
  const { transport } = scriptedTransport([{ result: 'declined', decline_code: 'insufficient_funds' }]);
  const screen = await takePayment(createAcquirerClient({ transport, sleep: async () => {} }), sale, 'tok');
  assert.deepEqual(screen, { screen: 'declined', text: 'Declined: insufficient funds' });
});

test('a rejected request is an error screen', async () => {
  const { transport } = scriptedTransport([422]);
  const screen = await takePayment(createAcquirerClient({ transport, sleep: async () => {} }), sale, 'tok');
  assert.equal(screen.screen, 'error');
});

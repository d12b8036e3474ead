import test from 'node:test';
import assert from 'node:assert/strict';
import { createAcquirerClient } from '../src/acquirer.js';
import { scriptedTransport } from './fake-acquirer.js';

const sleep = async () => {};
const sale = { amount: 2599, currency: 'EUR', cardToken: 'tok_1', reference: 'R-1001' };
const approved = { result: 'approved', transaction_id: 'tx_9', auth_code: 'A1B2' };

test('maps an approved charge', async () => {
  const { transport } = scriptedTransport([approved]);
  assert.deepEqual(await createAcquirerClient({ transport, sleep }).charge(sale), { approved: true, transactionId: 'tx_9', authCode: 'A1B2' });
});

test('maps a decline', async () => {
  const { transport } = scriptedTransport([{ result: 'declined', decline_code: 'expired_card' }]);
  assert.deepEqual(await createAcquirerClient({ transport, sleep }).charge(sale), { approved: false, declineCode: 'expired_card' });
});

test('retries a charge after a timeout', async () => {
  const { transport, calls } = scriptedTransport(['timeout', approved]);
  const result = await createAcquirerClient({ transport, sleep }).charge(sale);
  assert.equal(result.approved, true);
  assert.equal(calls.length, 2);
});

test('lookup retries and reports unknown references', async () => {
  const { transport, calls } = scriptedTransport([503, 404]);
  assert.deepEqual(await createAcquirerClient({ transport, sleep }).lookup('R 7'), { found: false });
  assert.deepEqual(calls, ['/v1/charges?reference=R%207', '/v1/charges?reference=R%207']);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../src/session.js';
import { createApi } from '../src/api.js';
import { fakeIdp, clockAt } from './fake-idp.js';

/**
 * @param {(token: string) => number} statusFor
 */
function setup(statusFor) {
  const clock = clockAt(0);
  const { idp, log } = fakeIdp(clock);
  const session = new Session(idp, { accessToken: 'at-0', refreshToken: 'rt-0', expiresAt: 3_600_000 }, { now: clock.now });
  /** @type {string[]} */
  const seen = [];
  /** @type {import('../src/api.js').Fetcher} */
  const fetcher = async (req) => {
    const token = req.headers.authorization.slice('Bearer '.length);
    seen.push(`${req.method} ${req.url} ${token}`);
    const status = statusFor(token);
    return { status, body: status === 200 ? '{"ok":true}' : '' };
  };
  return { api: createApi({ baseUrl: 'https://api.example', session, fetcher }), seen, log };
}

test('sends the bearer token', async () => {
  const { api, seen } = setup(() => 200);
  assert.deepEqual(await api.getOrder('A/1'), { ok: true });
  assert.deepEqual(seen, ['GET https://api.example/v2/orders/A%2F1 at-0']);
});

test('retries once with a fresh token after a 401', async () => {
  const { api, seen, log } = setup((t) => (t === 'at-0' ? 401 : 200));
  await api.markShipped('A1', 'dhl', 'JD0001');
  assert.deepEqual(seen, ['POST https://api.example/v2/orders/A1/shipments at-0', 'POST https://api.example/v2/orders/A1/shipments at-1']);
  assert.deepEqual(log, ['refresh_token rt-0']);
});

test('gives up after the second 401', async () => {
  const { api } = setup(() => 401);
  await assert.rejects(api.listOrders(), /HTTP 401/);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { createClient, UpstreamError } from '../src/client.js';
import { resolveOptions } from '../src/options.js';

/**
 * @param {Array<number | Error>} script  statuses to answer with, or errors to throw, in order
 */
function scripted(script) {
  /** @type {import('../src/client.js').TransportRequest[]} */
  const calls = [];
  /** @type {import('../src/client.js').Transport} */
  const transport = async (req) => {
    calls.push(req);
    const next = script.shift();
    if (next === undefined) throw new Error('script exhausted');
    if (next instanceof Error) throw next;
    return { status: next, headers: {}, body: next < 400 ? '{"ok":true}' : '' };
  };
  return { transport, calls };
}

const env = { sleep: async () => {}, random: () => 0.5 };

test('returns the parsed body', async () => {
  const { transport, calls } = scripted([200]);
  const c = createClient(resolveOptions({ baseUrl: 'https://svc.example' }), transport, env);
  assert.deepEqual(await c.post('items', { a: 1 }), { ok: true });
  assert.deepEqual(calls[0], { method: 'POST', url: 'https://svc.example/items', body: '{"a":1}', timeoutMs: 5000 });
});

test('retries retryable statuses and network errors', async () => {
  const { transport, calls } = scripted([503, new Error('ECONNRESET'), 200]);
  const c = createClient(resolveOptions({ baseUrl: 'https://svc.example', maxRetries: 2 }), transport, env);
  assert.deepEqual(await c.get('/x'), { ok: true });
  assert.equal(calls.length, 3);
});

test('gives up after the configured number of retries', async () => {
  const { transport, calls } = scripted([503, 503, 503, 503]);
  const c = createClient(resolveOptions({ baseUrl: 'https://svc.example', maxRetries: 1 }), transport, env);
  await assert.rejects(c.get('/x'), (/** @type {unknown} */ err) => err instanceof UpstreamError && err.attempts === 2 && err.status === 503);
  assert.equal(calls.length, 2);
});

test('does not retry when retries are disabled', async () => {
  const { transport, calls } = scripted([503, 200]);
  const c = createClient(resolveOptions({ baseUrl: 'https://pay.example', maxRetries: 0 }), transport, env);
  await assert.rejects(c.post('/charges', { cents: 100 }), UpstreamError);
  assert.equal(calls.length, 1);
});

test('does not retry client errors', async () => {
  const { transport, calls } = scripted([404]);
  const c = createClient(resolveOptions({ baseUrl: 'https://svc.example' }), transport, env);
  await assert.rejects(c.get('/missing'), /HTTP 404/);
  assert.equal(calls.length, 1);
});

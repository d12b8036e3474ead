import test from 'node:test';
import assert from 'node:assert/strict';
import { buildClients } from '../src/upstreams.js';

const transport = async () => ({ status: 200, headers: {}, body: '' });

test('layers upstream settings over the file defaults', () => {
  const clients = buildClients(
    {
      defaults: { timeoutMs: 2000, maxRetries: 2 },
      upstreams: {
        pay: { baseUrl: 'https://pay.example', maxRetries: 0 },
        cat: { baseUrl: 'https://cat.example', timeoutMs: 300 },
      },
    },
    transport,
  );
  assert.deepEqual([...clients.keys()], ['pay', 'cat']);
  assert.equal(clients.get('pay')?.options.maxRetries, 0);
  assert.equal(clients.get('pay')?.options.timeoutMs, 2000);
  assert.equal(clients.get('cat')?.options.maxRetries, 2);
  assert.equal(clients.get('cat')?.options.timeoutMs, 300);
});

test('names the upstream whose settings are invalid', () => {
  assert.throws(() => buildClients({ upstreams: { broken: { baseUrl: 'ftp://x' } } }, transport), /upstream broken: invalid baseUrl/);
});

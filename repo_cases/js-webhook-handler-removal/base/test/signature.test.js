import test from 'node:test';
import assert from 'node:assert/strict';
import { parseSignatureHeader, verifySignature } from '../src/signature.js';

/** A stand-in for the HMAC: deterministic and secret-dependent enough for these tests. */
const sign = (/** @type {string} */ m) => [...m].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7).toString(16);

test('parses timestamp and every v1 signature', () => {
  assert.deepEqual(parseSignatureHeader('t=1700000000, v1=AA ,v1=bb,v0=zz'), { timestamp: 1700000000, signatures: ['aa', 'bb'] });
  assert.deepEqual(parseSignatureHeader(undefined), { timestamp: null, signatures: [] });
});

test('accepts any valid signature during rotation', () => {
  const body = '{"id":"evt_1"}';
  const header = `t=1000,v1=deadbeef,v1=${sign(`1000.${body}`)}`;
  assert.deepEqual(verifySignature(header, body, sign, { now: 1100 }), { ok: true, reason: '' });
});

test('rejects stale, malformed and forged deliveries', () => {
  const body = '{}';
  assert.equal(verifySignature(`t=1000,v1=${sign(`1000.${body}`)}`, body, sign, { now: 2000 }).reason, 'stale timestamp');
  assert.equal(verifySignature('v1=abc', body, sign, { now: 1000 }).reason, 'malformed header');
  assert.equal(verifySignature('t=1000,v1=abc', body, sign, { now: 1000 }).reason, 'bad signature');
});

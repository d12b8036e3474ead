import test from 'node:test';
import assert from 'node:assert/strict';
import { clientKey, clientAddress } from '../src/keys.js';

test('uses a well-formed API key', () => {
  const key = clientKey({ headers: { 'x-api-key': 'abcDEF0123456789xyz' }, remoteAddress: '10.0.0.1' });
  assert.equal(key, 'key:abcDEF0123456789xyz');
});

test('ignores malformed API keys', () => {
  assert.equal(clientKey({ headers: { 'x-api-key': 'short' }, remoteAddress: '10.0.0.1' }), 'ip:10.0.0.1');
});

test('trusts x-forwarded-for only from our proxies', () => {
  const headers = { 'x-forwarded-for': '198.51.100.7, 10.0.0.2' };
  assert.equal(clientAddress({ headers, remoteAddress: '192.0.2.1' }, ['10.0.0.2']), '192.0.2.1');
  assert.equal(clientAddress({ headers, remoteAddress: '10.0.0.2' }, ['10.0.0.2']), '198.51.100.7');
});

test('a spoofed leftmost hop does not win', () => {
  const headers = { 'x-forwarded-for': '1.1.1.1, 198.51.100.7, 10.0.0.2' };
  assert.equal(clientAddress({ headers, remoteAddress: '10.0.0.2' }, ['10.0.0.2']), '198.51.100.7');
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { resolveOptions, DEFAULTS } from '../src/options.js';

test('later layers override earlier ones', () => {
  const o = resolveOptions({ timeoutMs: 1000, maxRetries: 1 }, { baseUrl: 'https://a.example/', maxRetries: 4 });
  assert.deepEqual(o, { baseUrl: 'https://a.example', timeoutMs: 1000, maxRetries: 4, backoffMs: DEFAULTS.backoffMs, retryOn: [503] });
});

test('zero retries is a valid setting', () => {
  assert.equal(resolveOptions({ baseUrl: 'http://x', maxRetries: 0 }).maxRetries, 0);
});

test('ignores keys it does not know', () => {
  const o = resolveOptions({ baseUrl: 'http://x', owner: 'team-payments' });
  assert.equal(Object.hasOwn(o, 'owner'), false);
});

test('rejects invalid values', () => {
  assert.throws(() => resolveOptions({}), /invalid baseUrl/);
  assert.throws(() => resolveOptions({ baseUrl: 'http://x', timeoutMs: -1 }), /timeoutMs must be/);
  assert.throws(() => resolveOptions({ baseUrl: 'http://x', maxRetries: 1.5 }), /must be a non-negative integer/);
  assert.throws(() => resolveOptions({ baseUrl: 'http://x', retryOn: [200] }), /retryOn/);
});

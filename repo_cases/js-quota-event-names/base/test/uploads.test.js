import test from 'node:test';
import assert from 'node:assert/strict';
import { Bus } from '../src/bus.js';
import { QuotaTracker } from '../src/quota.js';
import { createUploadHandler } from '../src/uploads.js';
import { attachMetrics } from '../src/metrics.js';

/** @param {Partial<import('../src/uploads.js').Upload>} over */
const upload = (over = {}) => ({
  tenant: 'acme', name: 'a.pdf', size: 100, contentType: 'application/pdf', sha256: 'AB12', receivedSha: 'ab12', ...over,
});

function setup(limitBytes = 1000) {
  const bus = new Bus();
  const quota = new QuotaTracker(bus, () => ({ plan: 'team', limitBytes }));
  const metrics = attachMetrics(bus);
  const handle = createUploadHandler({ bus, quota, scan: (u) => !u.name.endsWith('.exe') });
  return { handle, metrics };
}

test('stores a valid upload and counts it', () => {
  const { handle, metrics } = setup();
  assert.deepEqual(handle(upload()), { ok: true, reason: '' });
  assert.deepEqual(metrics(), { stored: 1, storedBytes: 100, rejected: 0, quotaRefusals: 0 });
});

test('rejects with a reason', () => {
  const { handle, metrics } = setup();
  assert.equal(handle(upload({ size: 0 })).reason, 'bad_size');
  assert.equal(handle(upload({ contentType: 'application/x-sh' })).reason, 'blocked_type');
  assert.equal(handle(upload({ receivedSha: 'ffff' })).reason, 'checksum_mismatch');
  assert.equal(handle(upload({ name: 'x.exe' })).reason, 'scan_failed');
  assert.equal(metrics().rejected, 4);
});

test('quota refusals are counted separately', () => {
  const { handle, metrics } = setup(150);
  handle(upload());
  assert.equal(handle(upload()).reason, 'quota');
  assert.deepEqual(metrics(), { stored: 1, storedBytes: 100, rejected: 1, quotaRefusals: 1 });
});

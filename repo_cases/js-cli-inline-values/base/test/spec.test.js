import test from 'node:test';
import assert from 'node:assert/strict';
import { indexSpecs, camel } from '../src/spec.js';

test('rejects inconsistent specs', () => {
  assert.throws(() => indexSpecs([{ name: 'a', type: 'string' }, { name: 'a', type: 'string' }]), /duplicate option --a/);
  assert.throws(() => indexSpecs([{ name: 'a', alias: 'x', type: 'string' }, { name: 'b', alias: 'x', type: 'string' }]), /duplicate alias -x/);
  assert.throws(() => indexSpecs([{ name: 'Bad', type: 'string' }]), /invalid option name/);
  assert.throws(() => indexSpecs([{ name: 'n', type: 'number', default: '3' }]), /default of --n must be a number/);
});

test('camel-cases option keys', () => {
  assert.equal(camel('dry-run'), 'dryRun');
  assert.equal(camel('max-retry-count'), 'maxRetryCount');
});

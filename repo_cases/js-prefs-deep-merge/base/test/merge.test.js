import test from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PREFS } from '../src/defaults.js';
import { applyOverrides } from '../src/merge.js';

test('keeps sibling settings of a section', () => {
  const next = applyOverrides(DEFAULT_PREFS, { display: { theme: 'dark' } });
  assert.deepEqual(next.display, { theme: 'dark', density: 'comfortable', reduceMotion: false });
});

test('replaces scalar settings', () => {
  assert.equal(applyOverrides(DEFAULT_PREFS, { locale: 'de-DE' }).locale, 'de-DE');
});

test('does not modify the current preferences', () => {
  const current = structuredClone(DEFAULT_PREFS);
  applyOverrides(current, { display: { density: 'compact' } });
  assert.equal(current.display.density, 'comfortable');
});

test('rejects unknown sections', () => {
  assert.throws(() => applyOverrides(DEFAULT_PREFS, { beta: { enabled: true } }), /unknown preference "beta"/);
});

import test from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PREFS } from '../src/defaults.js';
import { validatePrefs } from '../src/validate.js';

test('the defaults are valid', () => {
  assert.doesNotThrow(() => validatePrefs(DEFAULT_PREFS));
});

test('rejects unknown keys at any depth', () => {
  assert.throws(() => validatePrefs({ display: { fontSize: 14 } }), /unknown preference "display.fontSize"/);
  assert.throws(() => validatePrefs({ notifications: { sms: {} } }), /unknown preference "notifications.sms"/);
});

test('checks types, enums and times', () => {
  assert.throws(() => validatePrefs({ display: { reduceMotion: 'yes' } }), /"display.reduceMotion" must be a boolean/);
  assert.throws(() => validatePrefs({ display: { theme: 'sepia' } }), /must be one of system, light, dark/);
  assert.throws(() => validatePrefs({ notifications: { quietHours: { from: '25:00' } } }), /must be HH:MM/);
  assert.throws(() => validatePrefs({ notifications: 'off' }), /"notifications" must be an object/);
});

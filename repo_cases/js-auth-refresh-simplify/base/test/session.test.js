import test from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../src/session.js';
import { SessionExpiredError } from '../src/errors.js';
import { fakeIdp, clockAt } from './fake-idp.js';

const initial = { accessToken: 'at-0', refreshToken: 'rt-0', expiresAt: 3_600_000 };

test('returns the current token while it is valid', async () => {
  const clock = clockAt(0);
  const { idp, log } = fakeIdp(clock);
  const s = new Session(idp, initial, { now: clock.now });
  assert.equal(await s.accessToken(), 'at-0');
  assert.deepEqual(log, []);
});

test('refreshes shortly before expiry and rotates the refresh token', async () => {
  const clock = clockAt(3_590_000);
  const { idp, log } = fakeIdp(clock);
  const s = new Session(idp, initial, { now: clock.now });
  assert.equal(await s.accessToken(), 'at-1');
  assert.equal(s.tokens?.refreshToken, 'rt-1');
  clock.t += 3_600_000;
  assert.equal(await s.accessToken(), 'at-2');
  assert.deepEqual(log, ['refresh_token rt-0', 'refresh_token rt-1']);
});

test('a rejected refresh token ends the session', async () => {
  const clock = clockAt(4_000_000);
  const { idp } = fakeIdp(clock);
  let ended = 0;
  const s = new Session(idp, { ...initial, refreshToken: 'rt-stolen' }, { now: clock.now, onEnded: () => ended++ });
  await assert.rejects(s.accessToken(), SessionExpiredError);
  assert.equal(s.active, false);
  assert.equal(ended, 1);
  await assert.rejects(s.accessToken(), SessionExpiredError);
});

test('a network error during refresh keeps the session', async () => {
  const clock = clockAt(4_000_000);
  const { idp, failOnce } = fakeIdp(clock);
  const s = new Session(idp, initial, { now: clock.now });
  failOnce();
  await assert.rejects(s.accessToken(), /ECONNRESET/);
  assert.equal(s.active, true);
  assert.equal(await s.accessToken(), 'at-1');
});

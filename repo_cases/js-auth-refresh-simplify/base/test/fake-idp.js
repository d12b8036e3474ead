// @ts-check
import { createIdp } from '../src/idp.js';

/**
 * A token endpoint that rotates refresh tokens: each one can be used once.
 * @param {{ now: () => number }} clock
 */
export function fakeIdp(clock) {
  let issued = 0;
  const valid = new Set(['rt-0']);
  /** @type {string[]} */
  const log = [];
  let failNext = false;
  /** @type {import('../src/idp.js').PostForm} */
  const postForm = async (_url, form) => {
    await Promise.resolve();
    log.push(`${form.grant_type} ${form.refresh_token ?? form.code}`);
    if (failNext) {
      failNext = false;
      throw new Error('ECONNRESET');
    }
    if (form.grant_type === 'refresh_token' && !valid.delete(form.refresh_token)) {
      return { status: 400, json: { error: 'invalid_grant' } };
    }
    issued += 1;
    valid.add(`rt-${issued}`);
    return { status: 200, json: { access_token: `at-${issued}`, refresh_token: `rt-${issued}`, expires_in: 3600 } };
  };
  const idp = createIdp({ tokenUrl: 'https://id.example/token', clientId: 'partner-app', postForm, now: clock.now });
  return {
    idp,
    log,
    failOnce() {
      failNext = true;
    },
  };
}

/** @param {number} t */
export function clockAt(t) {
  const c = { t, now: () => c.t };
  return c;
}

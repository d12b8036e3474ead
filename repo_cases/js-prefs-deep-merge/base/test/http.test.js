import test from 'node:test';
import assert from 'node:assert/strict';
import { PrefsStore } from '../src/store.js';
import { createHandler } from '../src/http.js';

function app() {
  return createHandler(new PrefsStore(), { auditLog: () => ['login u1'] });
}

/** @param {string} method @param {string} path @param {string} [body] @param {Record<string, unknown>} [session] */
const req = (method, path, body = '', session = {}) => ({ method, path, body, session: { userId: 'u1', ...session } });

test('updates and returns preferences', () => {
  const handle = app();
  const res = handle(req('PATCH', '/me/preferences', '{"display":{"theme":"dark"}}'));
  assert.equal(res.status, 200);
  const again = handle(req('GET', '/me/preferences'));
  assert.equal(/** @type {any} */ (again.body).display.theme, 'dark');
});

test('reports validation errors with their path', () => {
  const res = app()(req('PATCH', '/me/preferences', '{"display":{"density":"tiny"}}'));
  assert.deepEqual(res, { status: 422, body: { error: '"display.density" must be one of comfortable, compact', path: 'display.density' } });
});

test('rejects bodies that are not JSON objects', () => {
  assert.equal(app()(req('PATCH', '/me/preferences', '{oops')).status, 400);
  assert.equal(app()(req('PATCH', '/me/preferences', '[1,2]')).status, 422);
});

test('audit log is for staff only', () => {
  const handle = app();
  assert.equal(handle(req('GET', '/admin/audit-log')).status, 403);
  assert.deepEqual(handle(req('GET', '/admin/audit-log', '', { staff: true })).body, ['login u1']);
});

test('a failed update leaves preferences unchanged', () => {
  const handle = app();
  handle(req('PATCH', '/me/preferences', '{"locale":"fr-FR"}'));
  handle(req('PATCH', '/me/preferences', '{"locale":"de-DE","display":{"theme":"neon"}}'));
  assert.equal(/** @type {any} */ (handle(req('GET', '/me/preferences')).body).locale, 'fr-FR');
});

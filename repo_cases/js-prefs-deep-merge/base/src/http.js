// @ts-check
import { PrefsError } from './errors.js';
import { canViewAuditLog } from './access.js';

/**
 * @typedef {object} HttpRequest
 * @property {string} method
 * @property {string} path
 * @property {string} body
 * @property {import('./access.js').Session} session
 */

/**
 * @param {import('./store.js').PrefsStore} store
 * @param {{ auditLog: () => string[] }} audit
 */
export function createHandler(store, audit) {
  /** @param {HttpRequest} req */
  return function handle(req) {
    if (req.path === '/me/preferences' && req.method === 'GET') {
      return { status: 200, body: store.get(req.session.userId) };
    }
    if (req.path === '/me/preferences' && req.method === 'PATCH') {
      /** @type {unknown} */
      let patch;
      try {
        patch = JSON.parse(req.body);
      } catch {
        return { status: 400, body: { error: 'invalid JSON' } };
      }
      try {
        return { status: 200, body: store.update(req.session.userId, patch) };
      } catch (err) {
        if (err instanceof PrefsError) return { status: 422, body: { error: err.message, path: err.path } };
        throw err;
      }
    }
    if (req.path === '/admin/audit-log' && req.method === 'GET') {
      if (!canViewAuditLog(req.session)) return { status: 403, body: { error: 'forbidden' } };
      return { status: 200, body: audit.auditLog() };
    }
    return { status: 404, body: { error: 'not found' } };
  };
}

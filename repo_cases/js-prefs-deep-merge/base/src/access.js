// @ts-check

/**
 * @typedef {object} Session
 * @property {string} userId
 * @property {boolean} [staff]     set only for employees signed in through the SSO gateway
 * @property {string[]} [scopes]
 */

/** @param {Session} session */
export function canViewAuditLog(session) {
  return session.staff === true;
}

/** @param {Session} session @param {string} scope */
export function hasScope(session, scope) {
  return Array.isArray(session.scopes) && session.scopes.includes(scope);
}

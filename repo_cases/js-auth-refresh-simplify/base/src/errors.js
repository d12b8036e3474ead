// @ts-check

export class AuthError extends Error {
  /**
   * @param {string} message
   * @param {string} code  OAuth error code, e.g. invalid_grant
   */
  constructor(message, code) {
    super(message);
    this.name = 'AuthError';
    this.code = code;
  }
}

export class SessionExpiredError extends AuthError {
  constructor() {
    super('the session has ended; sign in again', 'session_expired');
    this.name = 'SessionExpiredError';
  }
}

// @ts-check
import { AuthError, SessionExpiredError } from './errors.js';

const SKEW_MS = 30_000;

/**
 * Holds the user's tokens and hands out a valid access token.
 * Concurrent callers that find the token expired share one refresh.
 */
export class Session {
  /**
   * @param {ReturnType<typeof import('./idp.js').createIdp>} idp
   * @param {import('./idp.js').TokenSet} tokens
   * @param {{ now?: () => number, onEnded?: () => void }} [options]
   */
  constructor(idp, tokens, options = {}) {
    this.idp = idp;
    /** @type {import('./idp.js').TokenSet | null} */
    this.tokens = tokens;
    this.now = options.now ?? Date.now;
    this.onEnded = options.onEnded ?? (() => {});
    /** @type {Promise<string> | null} */
    this.refreshing = null;
  }

  get active() {
    return this.tokens !== null;
  }

  /** @returns {Promise<string>} */
  async accessToken() {
    if (!this.tokens) throw new SessionExpiredError();
    if (this.tokens.expiresAt - SKEW_MS > this.now()) return this.tokens.accessToken;
    return this.forceRefresh();
  }

  /** @returns {Promise<string>} */
  forceRefresh() {
    if (!this.refreshing) {
      this.refreshing = this.refreshOnce().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  /** @returns {Promise<string>} */
  async refreshOnce() {
    const current = this.tokens;
    if (!current) throw new SessionExpiredError();
    try {
      this.tokens = await this.idp.refresh(current.refreshToken);
      return this.tokens.accessToken;
    } catch (err) {
      if (err instanceof AuthError && err.code === 'invalid_grant') {
        this.end();
        throw new SessionExpiredError();
      }
      throw err;
    }
  }

  end() {
    if (!this.tokens) return;
    this.tokens = null;
    this.onEnded();
  }
}

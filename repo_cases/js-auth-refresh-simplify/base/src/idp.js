// @ts-check
import { AuthError } from './errors.js';

/**
 * @typedef {object} TokenSet
 * @property {string} accessToken
 * @property {string} refreshToken
 * @property {number} expiresAt  epoch ms
 */

/**
 * @typedef {(url: string, form: Record<string, string>) => Promise<{ status: number, json: Record<string, any> }>} PostForm
 */

/**
 * Minimal OAuth token endpoint client.
 * @param {{ tokenUrl: string, clientId: string, postForm: PostForm, now?: () => number }} options
 */
export function createIdp({ tokenUrl, clientId, postForm, now = Date.now }) {
  /**
   * @param {Record<string, string>} form
   * @returns {Promise<TokenSet>}
   */
  async function token(form) {
    const res = await postForm(tokenUrl, { client_id: clientId, ...form });
    if (res.status !== 200) {
      const code = typeof res.json.error === 'string' ? res.json.error : 'server_error';
      throw new AuthError(`token endpoint answered ${res.status} (${code})`, code);
    }
    const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn } = res.json;
    if (typeof accessToken !== 'string' || typeof expiresIn !== 'number') {
      throw new AuthError('malformed token response', 'server_error');
    }
    return { accessToken, refreshToken: refreshToken ?? form.refresh_token, expiresAt: now() + expiresIn * 1000 };
  }

  return {
    /** @param {string} code @param {string} verifier */
    exchangeCode: (code, verifier) => token({ grant_type: 'authorization_code', code, code_verifier: verifier }),
    /** @param {string} refreshToken */
    refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}

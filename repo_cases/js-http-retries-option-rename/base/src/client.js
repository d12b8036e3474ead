// @ts-check
import { backoffDelay, retryAfterMs } from './backoff.js';

/**
 * @typedef {object} TransportRequest
 * @property {string} method
 * @property {string} url
 * @property {string | undefined} body
 * @property {number} timeoutMs
 */

/**
 * @typedef {object} TransportResponse
 * @property {number} status
 * @property {Record<string, string>} headers
 * @property {string} body
 */

/** @typedef {(req: TransportRequest) => Promise<TransportResponse>} Transport */

export class UpstreamError extends Error {
  /**
   * @param {string} message
   * @param {{ status?: number, attempts: number }} info
   */
  constructor(message, info) {
    super(message);
    this.name = 'UpstreamError';
    this.status = info.status;
    this.attempts = info.attempts;
  }
}

/**
 * @param {import('./options.js').ClientOptions} options
 * @param {Transport} transport
 * @param {{ sleep?: (ms: number) => Promise<void>, random?: () => number, now?: () => number }} [env]
 */
export function createClient(options, transport, env = {}) {
  const sleep = env.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  const random = env.random ?? Math.random;
  const now = env.now ?? Date.now;

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [payload]
   */
  async function request(method, path, payload) {
    const url = options.baseUrl + (path.startsWith('/') ? path : `/${path}`);
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    let attempt = 0;
    for (;;) {
      /** @type {TransportResponse | null} */
      let res = null;
      /** @type {unknown} */
      let failure = null;
      try {
        res = await transport({ method, url, body, timeoutMs: options.timeoutMs });
      } catch (err) {
        failure = err;
      }
      if (res && res.status < 400) return res.body ? JSON.parse(res.body) : null;
      const retryable = failure !== null || (res !== null && options.retryOn.includes(res.status));
      if (!retryable || attempt >= options.maxRetries) {
        const why = res ? `HTTP ${res.status}` : String(failure);
        throw new UpstreamError(`${method} ${url} failed: ${why}`, { status: res?.status, attempts: attempt + 1 });
      }
      const hinted = res ? retryAfterMs(res.headers['retry-after'], now()) : null;
      await sleep(hinted ?? backoffDelay(attempt, options.backoffMs, random));
      attempt++;
    }
  }

  return {
    options,
    /** @param {string} path */
    get: (path) => request('GET', path),
    /** @param {string} path @param {unknown} payload */
    post: (path, payload) => request('POST', path, payload),
    /** @param {string} path @param {unknown} payload */
    put: (path, payload) => request('PUT', path, payload),
  };
}

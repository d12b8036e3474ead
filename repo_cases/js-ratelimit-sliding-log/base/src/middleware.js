// @ts-check
import { clientKey } from './keys.js';

/**
 * @typedef {object} LimitedResponse
 * @property {number} status
 * @property {Record<string, string>} headers
 * @property {unknown} body
 */

/**
 * @param {object} deps
 * @param {import('./limiter.js').Limiter} deps.limiter
 * @param {(plan: string | undefined) => import('./policies.js').Policy} deps.policyFor
 * @param {(req: import('./keys.js').IncomingRequest) => string | undefined} [deps.planOf]
 * @param {string[]} [deps.trustedProxies]
 */
export function rateLimit({ limiter, policyFor, planOf = () => undefined, trustedProxies = [] }) {
  /**
   * @param {import('./keys.js').IncomingRequest} req
   * @returns {{ headers: Record<string, string>, reject: LimitedResponse | null }}
   */
  return function limit(req) {
    const decision = limiter.check(clientKey(req, { trustedProxies }), policyFor(planOf(req)));
    /** @type {Record<string, string>} */
    const headers = {
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(Math.ceil(decision.resetAt / 1000)),
    };
    if (decision.allowed) return { headers, reject: null };
    const retry = { ...headers, 'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) };
    return { headers, reject: { status: 429, headers: retry, body: { error: 'rate limit exceeded' } } };
  };
}

// @ts-check
import { AcquirerError, TimeoutError } from './errors.js';
import { withRetry } from './retry.js';

/**
 * @typedef {(path: string, body: Record<string, unknown> | null) =>
 *   Promise<{ status: number, json: Record<string, any> }>} Transport
 *   rejects with TimeoutError when the acquirer does not answer in time
 */

/**
 * @typedef {object} ChargeRequest
 * @property {number} amount      minor units
 * @property {string} currency
 * @property {string} cardToken   from the PIN pad
 * @property {string} reference   our receipt number, unique per sale
 */

/**
 * @typedef {{ approved: true, transactionId: string, authCode: string }
 *   | { approved: false, declineCode: string }} ChargeResult
 */

/**
 * @param {{ status: number, json: Record<string, any> }} res
 * @param {string} what
 */
function check(res, what) {
  if (res.status >= 500) throw new AcquirerError(`${what}: acquirer error ${res.status}`, { code: 'upstream', retryable: true });
  if (res.status >= 400) {
    throw new AcquirerError(`${what}: ${res.json.message ?? res.status}`, { code: String(res.json.code ?? 'rejected'), retryable: false });
  }
  return res.json;
}

/**
 * @param {{ transport: Transport, sleep?: (ms: number) => Promise<void> }} options
 */
export function createAcquirerClient({ transport, sleep }) {
  const retry = { sleep };
  return {
    /**
     * @param {ChargeRequest} req
     * @returns {Promise<ChargeResult>}
     */
    charge(req) {
      return withRetry(async () => {
        const json = check(await transport('/v1/charges', { ...req }), 'charge');
        return json.result === 'approved'
          ? { approved: true, transactionId: String(json.transaction_id), authCode: String(json.auth_code) }
          : { approved: false, declineCode: String(json.decline_code ?? 'unknown') };
      }, retry);
    },

    /**
     * @param {string} transactionId
     * @param {number} amount
     */
    refund(transactionId, amount) {
      return withRetry(async () => {
        const json = check(await transport(`/v1/charges/${transactionId}/refunds`, { amount }), 'refund');
        return { refundId: String(json.refund_id) };
      }, retry);
    },

    /**
     * Look a sale up by our own reference (for reconciliation).
     * @param {string} reference
     * @returns {Promise<{ found: boolean, approved?: boolean, transactionId?: string }>}
     */
    lookup(reference) {
      return withRetry(async () => {
        const res = await transport(`/v1/charges?reference=${encodeURIComponent(reference)}`, null);
        if (res.status === 404) return { found: false };
        const json = check(res, 'lookup');
        return { found: true, approved: json.result === 'approved', transactionId: String(json.transaction_id) };
      }, retry);
    },
  };
}

export { TimeoutError };

// @ts-check

const CAP_MS = 10_000;

/**
 * "Full jitter" exponential backoff: a random delay in [0, min(cap, base * 2^attempt)].
 * @param {number} attempt  0 for the first retry
 * @param {number} baseMs
 * @param {() => number} [random]
 */
export function backoffDelay(attempt, baseMs, random = Math.random) {
  const ceiling = Math.min(CAP_MS, baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * Honour a Retry-After header (seconds or HTTP date) when the server sends one.
 * @param {string | undefined} header
 * @param {number} now  epoch ms
 * @returns {number | null}
 */
export function retryAfterMs(header, now) {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Math.min(CAP_MS, Number(header.trim()) * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.min(CAP_MS, Math.max(0, at - now));
}

// @ts-check

/**
 * @typedef {object} ClientOptions
 * @property {string} baseUrl
 * @property {number} timeoutMs   per attempt
 * @property {number} maxRetries  attempts after the first one; 0 disables retrying
 * @property {number} backoffMs   base delay of the exponential backoff
 * @property {number[]} retryOn   HTTP statuses worth another attempt
 */

/** @type {Omit<ClientOptions, 'baseUrl'>} */
export const DEFAULTS = { timeoutMs: 5000, maxRetries: 3, backoffMs: 200, retryOn: [503] };

/**
 * Merge layered settings (library defaults < file defaults < per-upstream) and validate them.
 * Unknown keys are ignored so that config files can carry annotations for other tools.
 * @param {...Record<string, unknown>} layers
 * @returns {ClientOptions}
 */
export function resolveOptions(...layers) {
  /** @type {Record<string, unknown>} */
  const merged = Object.assign({}, DEFAULTS, ...layers);
  const { baseUrl, timeoutMs, maxRetries, backoffMs, retryOn } = merged;
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]+/.test(baseUrl)) throw new Error(`invalid baseUrl: ${baseUrl}`);
  for (const [name, v] of Object.entries({ timeoutMs, maxRetries, backoffMs })) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer`);
  }
  if (!Array.isArray(retryOn) || !retryOn.every((s) => Number.isInteger(s) && s >= 400 && s <= 599)) {
    throw new Error('retryOn must be a list of HTTP error statuses');
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    timeoutMs: /** @type {number} */ (timeoutMs),
    maxRetries: /** @type {number} */ (maxRetries),
    backoffMs: /** @type {number} */ (backoffMs),
    retryOn: [...retryOn],
  };
}

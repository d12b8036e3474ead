// @ts-check

/**
 * @typedef {object} Policy
 * @property {number} limit     requests allowed per window
 * @property {number} windowMs  window length in milliseconds
 */

const UNITS = /** @type {const} */ ({ s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000, hour: 3_600_000 });

/**
 * Parse "100/min", "5/s", "1000/h" or "30/10s".
 * @param {string} text
 * @returns {Policy}
 */
export function parsePolicy(text) {
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*([a-z]+)\s*$/.exec(text);
  if (!m) throw new Error(`invalid rate policy: ${JSON.stringify(text)}`);
  const limit = Number(m[1]);
  const count = m[2] ? Number(m[2]) : 1;
  const unit = /** @type {keyof typeof UNITS} */ (m[3]);
  if (!Object.hasOwn(UNITS, unit)) throw new Error(`unknown time unit in rate policy: ${m[3]}`);
  if (limit < 1 || count < 1) throw new Error(`rate policy must be positive: ${text}`);
  return { limit, windowMs: count * UNITS[unit] };
}

/**
 * Policies per plan; unknown plans get the default.
 * @param {Record<string, string>} table  plan name -> policy text
 * @param {string} fallback
 */
export function policyTable(table, fallback) {
  /** @type {Map<string, Policy>} */
  const parsed = new Map(Object.entries(table).map(([plan, text]) => [plan, parsePolicy(text)]));
  const def = parsePolicy(fallback);
  /** @param {string | undefined} plan */
  return (plan) => (plan !== undefined && parsed.get(plan)) || def;
}

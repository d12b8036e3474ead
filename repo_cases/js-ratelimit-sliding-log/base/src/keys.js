// @ts-check

/**
 * @typedef {object} IncomingRequest
 * @property {Record<string, string | undefined>} headers  lower-case header names
 * @property {string} remoteAddress
 */

/**
 * The identity a request is limited by: its API key when it has one, else the client address.
 * `trustedProxies` are the addresses of our own load balancers; only they may set x-forwarded-for.
 * @param {IncomingRequest} req
 * @param {{ trustedProxies?: string[] }} [options]
 */
export function clientKey(req, options = {}) {
  const apiKey = req.headers['x-api-key'];
  if (apiKey && /^[A-Za-z0-9_-]{16,64}$/.test(apiKey)) return `key:${apiKey}`;
  return `ip:${clientAddress(req, options.trustedProxies ?? [])}`;
}

/**
 * @param {IncomingRequest} req
 * @param {string[]} trusted
 */
export function clientAddress(req, trusted) {
  const forwarded = req.headers['x-forwarded-for'];
  if (!forwarded || !trusted.includes(req.remoteAddress)) return req.remoteAddress;
  const hops = forwarded.split(',').map((h) => h.trim()).filter(Boolean);
  // Walk from the nearest hop outwards and stop at the first address we do not operate.
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.includes(hops[i])) return hops[i];
  }
  return hops[0] ?? req.remoteAddress;
}

// @ts-check

/**
 * Parse `t=1700000000,v1=abc,v1=def` (several v1 values during secret rotation).
 * @param {string | undefined} header
 */
export function parseSignatureHeader(header) {
  /** @type {{ timestamp: number | null, signatures: string[] }} */
  const out = { timestamp: null, signatures: [] };
  for (const part of (header ?? '').split(',')) {
    const [k, v] = part.split('=', 2).map((s) => s?.trim());
    if (k === 't' && v && /^\d+$/.test(v)) out.timestamp = Number(v);
    else if (k === 'v1' && v) out.signatures.push(v.toLowerCase());
  }
  return out;
}

/**
 * @param {string | undefined} header
 * @param {string} body  raw request body
 * @param {(message: string) => string} sign  hex HMAC with the endpoint secret
 * @param {{ now: number, toleranceSec?: number }} clock  now in epoch seconds
 */
export function verifySignature(header, body, sign, clock) {
  const { timestamp, signatures } = parseSignatureHeader(header);
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed header' };
  if (Math.abs(clock.now - timestamp) > (clock.toleranceSec ?? 300)) return { ok: false, reason: 'stale timestamp' };
  const expected = sign(`${timestamp}.${body}`).toLowerCase();
  return signatures.some((s) => constantTimeEqual(s, expected)) ? { ok: true, reason: '' } : { ok: false, reason: 'bad signature' };
}

/** @param {string} a @param {string} b */
function constantTimeEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

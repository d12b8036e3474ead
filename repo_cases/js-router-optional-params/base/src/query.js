// @ts-check

/**
 * Parse a query string (with or without the leading `?`). Repeated keys collect into arrays.
 * @param {string} qs
 * @returns {Record<string, string | string[]>}
 */
export function parseQuery(qs) {
  /** @type {Record<string, string | string[]>} */
  const out = Object.create(null);
  const text = qs.startsWith('?') ? qs.slice(1) : qs;
  if (!text) return out;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    const prev = out[key];
    if (prev === undefined) out[key] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[key] = [prev, value];
  }
  return out;
}

/** @param {string} s */
function decodeComponent(s) {
  const spaced = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

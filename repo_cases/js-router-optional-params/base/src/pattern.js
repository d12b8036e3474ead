// @ts-check

/**
 * @typedef {{ type: 'static', value: string }
 *   | { type: 'param', name: string }
 *   | { type: 'rest', name: string }} Segment
 */

/**
 * @typedef {object} CompiledPattern
 * @property {string} source
 * @property {Segment[]} segments
 * @property {number} score  routes with a higher score are tried first
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** @param {string} path */
export function splitPath(path) {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * @param {string} source  e.g. `/users/:id` or `/static/*file`
 * @returns {CompiledPattern}
 */
export function compilePattern(source) {
  if (!source.startsWith('/')) {
    throw new Error(`route pattern must start with "/": ${source}`);
  }
  const parts = splitPath(source);
  /** @type {Segment[]} */
  const segments = [];
  let score = 0;
  parts.forEach((part, i) => {
    if (part.startsWith(':')) {
      const name = part.slice(1);
      if (!NAME.test(name)) throw new Error(`bad parameter name in ${source}: ${part}`);
      segments.push({ type: 'param', name });
      score += 2;
    } else if (part.startsWith('*')) {
      if (i !== parts.length - 1) throw new Error(`wildcard must be the last segment: ${source}`);
      const name = part.slice(1) || 'rest';
      if (!NAME.test(name)) throw new Error(`bad wildcard name in ${source}: ${part}`);
      segments.push({ type: 'rest', name });
    } else {
      segments.push({ type: 'static', value: part });
      score += 3;
    }
  });
  return { source, segments, score };
}

/**
 * @param {CompiledPattern} pattern
 * @param {string} path  the URL path, without the query string
 * @returns {Record<string, string> | null}
 */
export function matchPattern(pattern, path) {
  const parts = splitPath(path);
  /** @type {Record<string, string>} */
  const params = {};
  const { segments } = pattern;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.type === 'rest') {
      params[seg.name] = parts.slice(i).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (seg.type === 'static') {
      if (part !== seg.value) return null;
      continue;
    }
    const value = safeDecode(part);
    if (value === null) return null;
    params[seg.name] = value;
  }
  return parts.length === segments.length ? params : null;
}

/** @param {string} raw */
function safeDecode(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

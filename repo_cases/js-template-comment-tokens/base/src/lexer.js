// @ts-check
import { TemplateError } from './errors.js';

/** @typedef {{ name: string, args: string[] }} FilterCall */

/**
 * @typedef {{ type: 'text', value: string, line: number }
 *   | { type: 'var', path: string[], filters: FilterCall[], line: number }
 *   | { type: 'tag', name: string, args: string[], line: number }} Token
 */

const OPEN = /\{\{|\{%|\{#/g;
const CLOSE = { '{{': '}}', '{%': '%}', '{#': '#}' };

/**
 * @param {string} source
 * @returns {Token[]}
 */
export function tokenize(source) {
  /** @type {Token[]} */
  const tokens = [];
  let pos = 0;
  let line = 1;
  /** @param {string} value */
  const pushText = (value) => {
    if (value) tokens.push({ type: 'text', value, line });
    line += countLines(value);
  };
  OPEN.lastIndex = 0;
  for (let m = OPEN.exec(source); m; m = OPEN.exec(source)) {
    pushText(source.slice(pos, m.index));
    const opener = /** @type {keyof typeof CLOSE} */ (m[0]);
    const end = source.indexOf(CLOSE[opener], m.index + 2);
    if (end === -1) throw new TemplateError(`unclosed ${opener}`, line);
    const inner = source.slice(m.index + 2, end);
    if (opener === '{{') tokens.push(varToken(inner.trim(), line));
    else if (opener === '{%') tokens.push(tagToken(inner.trim(), line));
    line += countLines(inner);
    pos = end + 2;
    OPEN.lastIndex = pos;
  }
  pushText(source.slice(pos));
  return tokens;
}

/** @param {string} s */
function countLines(s) {
  let n = 0;
  for (const ch of s) if (ch === '\n') n++;
  return n;
}

/**
 * `customer.name | default:"friend" | upper`
 * @param {string} inner
 * @param {number} line
 * @returns {Token}
 */
function varToken(inner, line) {
  const [head, ...rest] = splitOutsideQuotes(inner, '|');
  const path = head.trim().split('.');
  if (!path.every((p) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) throw new TemplateError(`bad variable "${head.trim()}"`, line);
  const filters = rest.map((f) => {
    const [name, ...args] = splitOutsideQuotes(f.trim(), ':');
    return { name: name.trim(), args: args.map((a) => unquote(a.trim())) };
  });
  return { type: 'var', path, filters, line };
}

/**
 * @param {string} inner
 * @param {number} line
 * @returns {Token}
 */
function tagToken(inner, line) {
  const [name, ...args] = inner.split(/\s+/);
  if (!name) throw new TemplateError('empty tag', line);
  return { type: 'tag', name, args, line };
}

/**
 * @param {string} text
 * @param {string} sep
 */
function splitOutsideQuotes(text, sep) {
  /** @type {string[]} */
  const parts = [];
  let cur = '';
  let quote = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = '';
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === sep) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/** @param {string} s */
function unquote(s) {
  return /^(["']).*\1$/.test(s) ? s.slice(1, -1) : s;
}

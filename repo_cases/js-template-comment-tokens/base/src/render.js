// @ts-check
import { TemplateError } from './errors.js';
import { tokenize } from './lexer.js';
import { parse } from './parser.js';
import { builtinFilters } from './filters.js';

/**
 * @param {Record<string, unknown>} scope
 * @param {string[]} path
 */
function lookup(scope, path) {
  /** @type {unknown} */
  let v = scope;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = /** @type {Record<string, unknown>} */ (v)[key];
  }
  return v;
}

/**
 * @param {import('./parser.js').Node[]} nodes
 * @param {Record<string, unknown>} scope
 * @param {Record<string, import('./filters.js').Filter>} filters
 * @returns {string}
 */
function renderNodes(nodes, scope, filters) {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.value;
    else if (node.kind === 'var') {
      let v = lookup(scope, node.path);
      for (const f of node.filters) {
        const fn = Object.hasOwn(filters, f.name) ? filters[f.name] : undefined;
        if (!fn) throw new TemplateError(`unknown filter "${f.name}"`, node.line);
        v = fn(v, ...f.args);
      }
      out += v === undefined || v === null ? '' : String(v);
    } else if (node.kind === 'if') {
      const truthy = isTruthy(lookup(scope, node.path));
      out += renderNodes(truthy !== node.negate ? node.then : node.otherwise, scope, filters);
    } else {
      const list = lookup(scope, node.path);
      if (!Array.isArray(list)) continue;
      for (const item of list) out += renderNodes(node.body, { ...scope, [node.item]: item }, filters);
    }
  }
  return out;
}

/** @param {unknown} v */
function isTruthy(v) {
  return Array.isArray(v) ? v.length > 0 : Boolean(v);
}

/**
 * Compile once, render many times.
 * @param {string} source
 * @param {{ filters?: Record<string, import('./filters.js').Filter> }} [options]
 */
export function compile(source, options = {}) {
  const ast = parse(tokenize(source));
  const filters = { ...builtinFilters, ...options.filters };
  /** @param {Record<string, unknown>} data */
  return (data) => renderNodes(ast, data, filters);
}

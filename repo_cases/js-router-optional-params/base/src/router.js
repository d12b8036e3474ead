// @ts-check
import { compilePattern, matchPattern } from './pattern.js';

/**
 * @typedef {object} Request
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} params
 * @property {Record<string, string | string[]>} query
 */

/**
 * @typedef {object} Response
 * @property {number} status
 * @property {Record<string, string>} [headers]
 * @property {unknown} [body]
 */

/** @typedef {(req: Request) => Response | Promise<Response>} Handler */

/**
 * @typedef {object} Route
 * @property {string} method
 * @property {import('./pattern.js').CompiledPattern} pattern
 * @property {Handler} handler
 * @property {number} order
 */

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export class Router {
  constructor() {
    /** @type {Route[]} */
    this.routes = [];
    this.sorted = true;
  }

  /**
   * @param {string} method
   * @param {string} source
   * @param {Handler} handler
   */
  add(method, source, handler) {
    const upper = method.toUpperCase();
    if (!METHODS.includes(upper)) throw new Error(`unsupported method ${method}`);
    this.routes.push({ method: upper, pattern: compilePattern(source), handler, order: this.routes.length });
    this.sorted = false;
    return this;
  }

  /** @param {string} source @param {Handler} handler */
  get(source, handler) {
    return this.add('GET', source, handler);
  }

  /** @param {string} source @param {Handler} handler */
  post(source, handler) {
    return this.add('POST', source, handler);
  }

  /** @returns {Route[]} */
  ordered() {
    if (!this.sorted) {
      this.routes.sort((a, b) => b.pattern.score - a.pattern.score || a.order - b.order);
      this.sorted = true;
    }
    return this.routes;
  }

  /**
   * @param {string} method
   * @param {string} path
   * @returns {{ route: Route, params: Record<string, string> } | null}
   */
  match(method, path) {
    const upper = method.toUpperCase();
    const wanted = upper === 'HEAD' ? ['HEAD', 'GET'] : [upper];
    for (const m of wanted) {
      for (const route of this.ordered()) {
        if (route.method !== m) continue;
        const params = matchPattern(route.pattern, path);
        if (params) return { route, params };
      }
    }
    return null;
  }

  /**
   * Methods that have a route matching `path`, for 405 responses and OPTIONS.
   * @param {string} path
   */
  allowedMethods(path) {
    const found = new Set();
    for (const route of this.ordered()) {
      if (matchPattern(route.pattern, path)) found.add(route.method);
    }
    if (found.has('GET')) found.add('HEAD');
    return METHODS.filter((m) => found.has(m));
  }
}

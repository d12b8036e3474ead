// @ts-check
import { escapeHtml } from './escape.js';

const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/g;

/**
 * Names of the placeholders a template uses, in order of first appearance.
 * @param {string} template
 */
export function placeholders(template) {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/**
 * Fill `{{ name }}` placeholders. Every placeholder must have a value.
 * @param {string} template
 * @param {Record<string, string | number>} vars
 */
export function render(template, vars) {
  const missing = placeholders(template).filter((p) => !Object.hasOwn(vars, p));
  if (missing.length) throw new Error(`missing template values: ${missing.join(', ')}`);
  return template.replace(PLACEHOLDER, (_, name) => escapeHtml(String(vars[name])));
}

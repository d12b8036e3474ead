// @ts-check
import { encodeCursor } from './cursor.js';

/** @typedef {{ id: number } & Record<string, unknown>} Row */

/**
 * @param {unknown} a
 * @param {unknown} b
 */
function compareValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/**
 * Keyset pagination over an in-memory result set (the repository layer builds the same
 * ordering in SQL). Rows are ordered by the sort column, then by id.
 * @template {Row} T
 * @param {T[]} rows
 * @param {import('./query.js').ListQuery} query
 */
export function paginate(rows, query) {
  const dir = query.order === 'desc' ? -1 : 1;
  const matching = rows.filter((r) => Object.entries(query.filters).every(([k, v]) => String(r[k]) === v));
  const sorted = [...matching].sort((a, b) => dir * (compareValues(a[query.sort], b[query.sort]) || a.id - b.id));
  const start = query.after ? sorted.findIndex((r) => r.id > /** @type {{ id: number }} */ (query.after).id) : 0;
  const page = start === -1 ? [] : sorted.slice(start, start + query.limit);
  const last = page[page.length - 1];
  const more = start !== -1 && start + query.limit < sorted.length;
  return { items: page, next: more && last ? encodeCursor({ id: last.id }) : null };
}

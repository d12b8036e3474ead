// @ts-check
import { BadRequestError } from './errors.js';
import { decodeCursor } from './cursor.js';

/**
 * @typedef {object} ListQuery
 * @property {number} limit
 * @property {string} sort
 * @property {'asc' | 'desc'} order
 * @property {Record<string, string>} filters
 * @property {import('./cursor.js').Cursor | null} after
 */

/**
 * @param {Record<string, string | undefined>} params  query string parameters
 * @param {{ sortable: string[], filterable: string[], defaultSort: string }} resource
 * @returns {ListQuery}
 */
export function parseListQuery(params, resource) {
  const limitText = params.limit ?? '25';
  if (!/^\d+$/.test(limitText)) throw new BadRequestError('limit must be a positive integer', 'limit');
  const limit = Math.min(100, Math.max(1, Number(limitText)));

  let sort = params.sort ?? resource.defaultSort;
  /** @type {'asc' | 'desc'} */
  let order = 'asc';
  if (sort.startsWith('-')) {
    order = 'desc';
    sort = sort.slice(1);
  }
  if (!resource.sortable.includes(sort)) throw new BadRequestError(`cannot sort by ${sort}`, 'sort');

  /** @type {Record<string, string>} */
  const filters = {};
  for (const [key, value] of Object.entries(params)) {
    const m = /^filter\[([a-z_]+)\]$/.exec(key);
    if (!m || value === undefined) continue;
    if (!resource.filterable.includes(m[1])) throw new BadRequestError(`cannot filter by ${m[1]}`, key);
    filters[m[1]] = value;
  }

  const after = params.after ? decodeCursor(params.after) : null;
  return { limit, sort, order, filters, after };
}

// @ts-check

/** @typedef {(value: unknown, ...args: string[]) => unknown} Filter */

/** @type {Record<string, Filter>} */
export const builtinFilters = {
  upper: (v) => String(v ?? '').toUpperCase(),
  lower: (v) => String(v ?? '').toLowerCase(),
  default: (v, fallback = '') => (v === undefined || v === null || v === '' ? fallback : v),
  join: (v, sep = ', ') => (Array.isArray(v) ? v.join(sep) : v),
  truncate: (v, n = '40') => {
    const s = String(v ?? '');
    const max = Number(n);
    return s.length > max ? s.slice(0, Math.max(0, max - 1)) + '…' : s;
  },
  currency: (v, code = 'EUR') =>
    typeof v === 'number' ? new Intl.NumberFormat('en-GB', { style: 'currency', currency: code }).format(v) : v,
};

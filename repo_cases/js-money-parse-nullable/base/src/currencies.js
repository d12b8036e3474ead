// @ts-check

/** @typedef {{ code: string, exponent: number, symbol: string }} Currency */

/** @type {Record<string, Currency>} */
const TABLE = {
  USD: { code: 'USD', exponent: 2, symbol: '$' },
  EUR: { code: 'EUR', exponent: 2, symbol: '€' },
  GBP: { code: 'GBP', exponent: 2, symbol: '£' },
  JPY: { code: 'JPY', exponent: 0, symbol: '¥' },
  KWD: { code: 'KWD', exponent: 3, symbol: 'KD' },
  CHF: { code: 'CHF', exponent: 2, symbol: 'CHF' },
};

/**
 * @param {string} code
 * @returns {Currency}
 */
export function currency(code) {
  const c = Object.hasOwn(TABLE, code.toUpperCase()) ? TABLE[code.toUpperCase()] : undefined;
  if (!c) throw new Error(`unsupported currency ${code}`);
  return c;
}

export function supportedCurrencies() {
  return Object.keys(TABLE).sort();
}

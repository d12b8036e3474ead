// @ts-check
import { currency } from './currencies.js';

const AMOUNT = /^([+-])?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/;

/**
 * Parse a user-typed amount ("1,234.50", "-3", "0.5") into integer minor units of `code`.
 * @param {string} text
 * @param {string} code  ISO 4217 currency code
 * @returns {number}
 */
export function parseAmount(text, code) {
  const { exponent } = currency(code);
  const m = AMOUNT.exec(text.trim().replace(/^\p{Sc}\s*/u, ''));
  if (!m) throw new Error(`not an amount: ${JSON.stringify(text)}`);
  const [, sign, whole, frac = ''] = m;
  if (frac.length > exponent) throw new Error(`${code} allows at most ${exponent} decimals: ${text}`);
  const minor = Number(whole.replace(/,/g, '')) * 10 ** exponent + Number(frac.padEnd(exponent, '0') || 0);
  if (!Number.isSafeInteger(minor)) throw new Error(`amount out of range: ${text}`);
  return sign === '-' ? -minor : minor;
}

/**
 * @param {number} minor
 * @param {string} code
 */
export function formatAmount(minor, code) {
  const { exponent, symbol } = currency(code);
  const abs = Math.abs(minor);
  const unit = 10 ** exponent;
  const whole = Math.floor(abs / unit).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = exponent > 0 ? '.' + String(abs % unit).padStart(exponent, '0') : '';
  return `${minor < 0 ? '-' : ''}${symbol}${whole}${frac}`;
}

// @ts-check
import { parseAmount } from './money.js';
import { supportedCurrencies } from './currencies.js';

/**
 * @typedef {object} ExpenseForm
 * @property {string} date
 * @property {string} description
 * @property {string} amount
 * @property {string} currency
 * @property {string} [tags]  comma separated
 */

/**
 * Validate the manual-expense form. Returns the entry, or field errors for the UI.
 * @param {ExpenseForm} form
 * @returns {{ ok: true, entry: import('./ledger.js').Entry } | { ok: false, errors: Record<string, string> }}
 */
export function validateExpense(form) {
  /** @type {Record<string, string>} */
  const errors = {};
  if (!/^\d{4}-\d{2}-\d{2}$/.test(form.date)) errors.date = 'Use YYYY-MM-DD';
  if (!form.description.trim()) errors.description = 'Required';
  if (!supportedCurrencies().includes(form.currency)) errors.currency = 'Unsupported currency';
  let minor = 0;
  if (!errors.currency) {
    try {
      minor = parseAmount(form.amount, form.currency);
      if (minor <= 0) errors.amount = 'Enter a positive amount';
    } catch {
      errors.amount = 'Not a valid amount';
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const tags = (form.tags ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
  return {
    ok: true,
    entry: { date: form.date, description: form.description.trim(), minor: -minor, currency: form.currency, tags },
  };
}

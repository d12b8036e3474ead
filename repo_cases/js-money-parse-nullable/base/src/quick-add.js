// @ts-check
import { parseAmount } from './money.js';

/**
 * Parse the quick-add bar: "12.50 EUR lunch with Sam #food #team".
 * The currency may be omitted (the user's default is used). Returns null when the text is not an expense.
 * @param {string} text
 * @param {{ defaultCurrency: string, today: string }} ctx
 * @returns {import('./ledger.js').Entry | null}
 */
export function parseQuickAdd(text, ctx) {
  const words = text.trim().split(/\s+/);
  const first = words.shift();
  if (!first) return null;
  let code = ctx.defaultCurrency;
  if (words[0] && /^[A-Za-z]{3}$/.test(words[0])) code = /** @type {string} */ (words.shift()).toUpperCase();
  let minor;
  try {
    minor = parseAmount(first, code);
  } catch {
    return null;
  }
  const tags = words.filter((w) => w.startsWith('#') && w.length > 1).map((w) => w.slice(1).toLowerCase());
  const description = words.filter((w) => !w.startsWith('#')).join(' ');
  if (!description) return null;
  return { date: ctx.today, description, minor: -Math.abs(minor), currency: code, tags };
}

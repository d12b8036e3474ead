// @ts-check

/**
 * @typedef {object} Entry
 * @property {string} date         YYYY-MM-DD
 * @property {string} description
 * @property {number} minor        signed amount in minor units; expenses are negative
 * @property {string} currency
 * @property {string[]} tags
 */

export class Ledger {
  constructor() {
    /** @type {Entry[]} */
    this.entries = [];
  }

  /** @param {Entry} entry */
  add(entry) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(entry.date)) throw new Error(`bad date ${entry.date}`);
    if (!Number.isSafeInteger(entry.minor)) throw new Error(`bad amount for ${entry.description}`);
    this.entries.push(entry);
    return entry;
  }

  /**
   * Balance per currency.
   * @returns {Record<string, number>}
   */
  balances() {
    /** @type {Record<string, number>} */
    const out = {};
    for (const e of this.entries) out[e.currency] = (out[e.currency] ?? 0) + e.minor;
    return out;
  }

  /** @param {string} tag */
  tagged(tag) {
    return this.entries.filter((e) => e.tags.includes(tag));
  }
}

// @ts-check

/**
 * @typedef {object} Quote
 * @property {string} symbol
 * @property {number} price
 * @property {number} previousClose
 */

/** Scrolling price ticker: renders the latest quote per symbol. */
export class Ticker {
  /**
   * @param {import('../bus.js').Bus} bus
   * @param {string[]} symbols
   */
  constructor(bus, symbols) {
    this.bus = bus;
    this.symbols = symbols;
    /** @type {Map<string, Quote>} */
    this.quotes = new Map();
    /** @type {(() => void) | null} */
    this.unsubscribe = null;
  }

  mount() {
    if (this.unsubscribe) return;
    this.unsubscribe = this.bus.on('quote', (/** @type {Quote} */ q) => {
      if (this.symbols.includes(q.symbol)) this.quotes.set(q.symbol, q);
    });
  }

  unmount() {
    if (!this.unsubscribe) return;
    this.unsubscribe();
    this.unsubscribe = null;
  }

  render() {
    return this.symbols
      .map((s) => {
        const q = this.quotes.get(s);
        if (!q) return `${s} --`;
        const change = ((q.price - q.previousClose) / q.previousClose) * 100;
        const arrow = change > 0 ? '▲' : change < 0 ? '▼' : '■';
        return `${s} ${q.price.toFixed(2)} ${arrow}${Math.abs(change).toFixed(1)}%`;
      })
      .join('  ');
  }
}

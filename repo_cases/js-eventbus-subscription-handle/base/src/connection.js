// @ts-check

/**
 * Feeds quote messages from the market-data socket into the bus, and reports
 * connection state. `socket` is anything with a message callback.
 * @param {import('./bus.js').Bus} bus
 * @param {{ onMessage(cb: (raw: string) => void): void }} socket
 */
export function connectQuotes(bus, socket) {
  let received = 0;
  socket.onMessage((raw) => {
    /** @type {unknown} */
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      bus.emit('alert', { id: 'feed-parse', level: 'warning', text: 'Unreadable market data message' });
      return;
    }
    if (!isQuote(msg)) return;
    received++;
    if (received === 1) bus.emit('feed:ready');
    bus.emit('quote', msg);
  });
  return { received: () => received };
}

/**
 * @param {unknown} v
 * @returns {v is import('./widgets/ticker.js').Quote}
 */
function isQuote(v) {
  if (typeof v !== 'object' || v === null) return false;
  const o = /** @type {Record<string, unknown>} */ (v);
  return typeof o.symbol === 'string' && typeof o.price === 'number' && typeof o.previousClose === 'number';
}

// @ts-check

/**
 * In-process counters scraped by the metrics endpoint.
 * @param {import('./bus.js').Bus} bus
 */
export function attachMetrics(bus) {
  /** @type {Record<string, number>} */
  const counters = { stored: 0, storedBytes: 0, rejected: 0, quotaRefusals: 0 };
  bus.on('uploadStored', (e) => {
    counters.stored += 1;
    counters.storedBytes += e.size;
  });
  bus.on('uploadRejected', () => {
    counters.rejected += 1;
  });
  bus.on('quotaExceeded', () => {
    counters.quotaRefusals += 1;
  });
  return () => ({ ...counters });
}

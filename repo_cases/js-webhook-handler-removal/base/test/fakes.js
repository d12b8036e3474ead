// @ts-check

/** @returns {import('../src/deps.js').Deps & { calls: string[] }} */
export function fakeDeps() {
  /** @type {string[]} */
  const calls = [];
  return {
    calls,
    invoices: {
      async setStatus(id, status) {
        calls.push(`invoice ${id} -> ${status}`);
      },
      async get(id) {
        return id === 'in_404' ? null : { id, customerId: 'cus_1', amount: 12000, currency: 'eur' };
      },
    },
    customers: {
      async anonymize(id) {
        calls.push(`anonymize ${id}`);
      },
    },
    ledger: {
      async record(e) {
        calls.push(`ledger ${e.kind} ${e.ref} ${e.amount} ${e.currency}`);
      },
    },
    mailer: {
      async send(to, subject, text) {
        calls.push(`mail ${to} | ${subject} | ${text}`);
      },
    },
    log: {
      info() {},
      warn(msg) {
        calls.push(`warn ${msg}`);
      },
    },
  };
}

/**
 * @param {string} type
 * @param {Record<string, unknown>} data
 * @param {string} [id]
 * @returns {import('../src/deps.js').WebhookEvent}
 */
export function event(type, data, id = 'evt_1') {
  return { id, type, created: 1_700_000_000, data };
}

// @ts-check

const ACCOUNTING = 'accounting@example.com';

/**
 * @param {number} minor
 * @param {string} currency
 */
function money(minor, currency) {
  return `${(minor / 100).toFixed(2)} ${String(currency).toUpperCase()}`;
}

/** @type {import('../deps.js').Handler} */
export async function notifyAccounting(event, deps) {
  if (event.type === 'charge.refunded') {
    const { charge, amount_refunded: amount, currency } = event.data;
    await deps.mailer.send(ACCOUNTING, `Refund on ${charge}`, `Refunded ${money(amount, currency)} on charge ${charge}.`);
    return;
  }
  const invoice = await deps.invoices.get(event.data.invoice);
  if (!invoice) {
    deps.log.warn(`accounting: invoice ${event.data.invoice} not found`);
    return;
  }
  await deps.mailer.send(
    ACCOUNTING,
    `Invoice ${invoice.id} paid`,
    `Customer ${invoice.customerId} paid ${money(invoice.amount, invoice.currency)}.`,
  );
}

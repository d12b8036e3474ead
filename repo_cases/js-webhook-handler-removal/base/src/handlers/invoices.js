// @ts-check

/** @type {import('../deps.js').Handler} */
export async function markInvoicePaid(event, deps) {
  await deps.invoices.setStatus(event.data.invoice, 'paid');
  deps.log.info(`invoice ${event.data.invoice} paid`);
}

/** @type {import('../deps.js').Handler} */
export async function flagDunning(event, deps) {
  const attempt = Number(event.data.attempt_count ?? 1);
  await deps.invoices.setStatus(event.data.invoice, attempt >= 3 ? 'uncollectible' : 'past_due');
}

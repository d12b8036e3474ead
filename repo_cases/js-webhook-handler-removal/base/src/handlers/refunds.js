// @ts-check

/** @type {import('../deps.js').Handler} */
export async function recordRefund(event, deps) {
  const { charge, amount_refunded: amount, currency } = event.data;
  if (!Number.isInteger(amount) || amount <= 0) throw new Error(`refund ${event.id}: bad amount`);
  await deps.ledger.record({ kind: 'refund', ref: charge, amount: -amount, currency: String(currency).toUpperCase() });
}

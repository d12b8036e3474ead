// @ts-check

/** @type {import('../deps.js').Handler} */
export async function anonymizeCustomer(event, deps) {
  await deps.customers.anonymize(event.data.customer);
  deps.log.info(`customer ${event.data.customer} anonymized`);
}

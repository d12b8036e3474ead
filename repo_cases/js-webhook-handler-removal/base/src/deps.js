// @ts-check

/**
 * What handlers may touch. Production wires real services; tests pass fakes.
 * @typedef {object} Deps
 * @property {{ setStatus(invoiceId: string, status: string): Promise<void>, get(invoiceId: string): Promise<{ id: string, customerId: string, amount: number, currency: string } | null> }} invoices
 * @property {{ anonymize(customerId: string): Promise<void> }} customers
 * @property {{ record(entry: { kind: string, ref: string, amount: number, currency: string }): Promise<void> }} ledger
 * @property {{ send(to: string, subject: string, text: string): Promise<void> }} mailer
 * @property {{ info(msg: string): void, warn(msg: string): void }} log
 */

/**
 * @typedef {object} WebhookEvent
 * @property {string} id
 * @property {string} type
 * @property {number} created  epoch seconds
 * @property {Record<string, any>} data
 */

/** @typedef {(event: WebhookEvent, deps: Deps) => Promise<void>} Handler */

export {};

// @ts-check
import { markInvoicePaid, flagDunning } from './invoices.js';
import { recordRefund } from './refunds.js';
import { anonymizeCustomer } from './customers.js';
import { notifyAccounting } from './accounting.js';

/** Handlers that config/routes.json can name. @type {Record<string, import('../deps.js').Handler>} */
export const registry = {
  markInvoicePaid,
  flagDunning,
  recordRefund,
  anonymizeCustomer,
  notifyAccounting,
};

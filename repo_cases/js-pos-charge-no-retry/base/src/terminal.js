// @ts-check
import { AcquirerError } from './errors.js';

const DECLINE_TEXT = {
  insufficient_funds: 'Declined: insufficient funds',
  expired_card: 'Declined: card expired',
  do_not_honor: 'Declined by the bank',
};

/**
 * What the cashier's screen shows after the customer taps or inserts a card.
 * @param {ReturnType<typeof import('./acquirer.js').createAcquirerClient>} client
 * @param {{ total: number, currency: string, receiptNo: string }} sale
 * @param {string} cardToken
 */
export async function takePayment(client, sale, cardToken) {
  try {
    const result = await client.charge({ amount: sale.total, currency: sale.currency, cardToken, reference: sale.receiptNo });
    if (result.approved) return { screen: 'approved', text: `Approved ${result.authCode}`, transactionId: result.transactionId };
    const text = /** @type {Record<string, string>} */ (DECLINE_TEXT)[result.declineCode] ?? 'Declined';
    return { screen: 'declined', text };
  } catch (err) {
    if (err instanceof AcquirerError) return { screen: 'error', text: 'Payment service unavailable, try again' };
    throw err;
  }
}

/** Helpers for domain tests. */
import { DomainError } from '../../src/domain/errors.js';
import type { Payment } from '../../src/domain/payment.js';

/** The domain code `fn` throws, or undefined when it returns; anything else it throws is rethrown. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return undefined;
}

/** A stored payment as a store or a state file holds it: a pending sale of 1000 GBP with nothing happened, and `fields` over it. */
export function storedPayment(fields: Partial<Payment> = {}): Payment {
  return {
    tenant: 't1',
    paymentId: '9900000000000000042',
    transactionReference: 'order-42',
    entity: 'default',
    currency: 'GBP',
    amount: 1000,
    createdAt: 0,
    origin: undefined,
    settlement: 'pending',
    refunded: 0,
    refundRequested: false,
    reversed: false,
    script: {},
    events: [],
    settlesAt: undefined,
    scheduled: [],
    eventCount: 0,
    ...fields,
  };
}

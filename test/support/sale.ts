/** Helpers for the card-on-file sale. */
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { HOST, handlerOf } from './sim.js';

export const SALE_REQUEST = 'application/vnd.service.payments-v5+json';
export const SALE_RESPONSE = 'application/vnd.service.payments-v5.hal+json';
export const SALE_PATH = '/payments/sales/migrateCardOnFile';

export const plainCard = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'card/plain',
  cardNumber: '4444333322221111',
  cardHolderName: 'Sherlock Holmes',
  cardExpiryDate: { month: 5, year: 2035 },
  ...fields,
});

let saleCount = 0;

/**
 * A valid sale body. Each call has a reference of its own (`order-0001`, `order-0002`, … in this file): a
 * reference used twice is refused (contract 4.4); `overrides` may name one.
 */
export function saleBody(paymentInstrument: unknown = plainCard(), overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street Stores' }, paymentInstrument },
    merchant: { entity: 'default' },
    transactionReference: `order-${String(++saleCount).padStart(4, '0')}`,
    ...overrides,
  };
}

export function sale(sim: Simulator, body: unknown, user = 'merchant', password = 'secret'): request.Test {
  return request(handlerOf(sim))
    .post(SALE_PATH)
    .auth(user, password)
    .set('Host', HOST)
    .set('Content-Type', SALE_REQUEST)
    .set('Accept', SALE_RESPONSE)
    .send(JSON.stringify(body));
}

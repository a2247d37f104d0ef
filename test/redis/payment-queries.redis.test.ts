/**
 * Payment queries across simulators that share one Redis (contract 4.4 on 3.5, decision 0057): a sale made
 * through one is found by its transactionReference through another, as it is now (a refund made through a
 * third shows), and a reset through one empties the others' answers.
 */
import { expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/simulator/facade.js';
import { redisDescribe, sharedRedisSimulators } from '../support/redis.js';

const QUERY_TYPE = 'application/vnd.service.payment-queries-v1.hal+json';
const SALE_REQUEST = 'application/vnd.service.payments-v5+json';
const SALE_RESPONSE = 'application/vnd.service.payments-v5.hal+json';
const HOST = 'sim.localhost';

const saleBody = (transactionReference: string) => ({
  instruction: {
    value: { amount: 250, currency: 'GBP' },
    narrative: { line1: 'Shop' },
    paymentInstrument: { type: 'card/plain', cardNumber: '4444333322221111', cardHolderName: 'Ada Lovelace', cardExpiryDate: { month: 5, year: 2035 } },
  },
  merchant: { entity: 'default' },
  transactionReference,
});

redisDescribe(import.meta.url)('payment queries across simulators that share one Redis', () => {
  const { simulators } = sharedRedisSimulators();

  const sale = (sim: Simulator, reference: string) =>
    request(sim.listener).post('/payments/sales/migrateCardOnFile').auth('merchant', 'secret').set('Host', HOST).set('Content-Type', SALE_REQUEST).set('Accept', SALE_RESPONSE).send(JSON.stringify(saleBody(reference)));
  const query = (sim: Simulator, reference: string) =>
    request(sim.listener).get(`/paymentQueries/payments?transactionReference=${reference}`).auth('merchant', 'secret').set('Host', HOST).set('Accept', QUERY_TYPE);
  type Item = { paymentId: string; lastEvent: string; _links: Record<string, { href: string }> };
  const itemsOf = (body: unknown): Item[] => (body as { _embedded: { payments: Item[] } })._embedded.payments;

  it('finds through one simulator the sale made through another, as it is now', async () => {
    const [a, b, c] = simulators(3, 'payment-queries');
    const sold = await sale(a!, 'order-1');
    expect(sold.status).toBe(201);
    const events = sold.body._links['payments:events'].href as string;
    const found = itemsOf((await query(b!, 'order-1')).body);
    expect(found.map((p) => [p.paymentId, p.lastEvent])).toEqual([[events.split('/').pop(), 'sentForSettlement']]);
    // Refunded through a third; the first sees it by its self link.
    const refund = await request(c!.listener).post(new URL(found[0]!._links['payments:refund']!.href).pathname).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE);
    expect(refund.status).toBe(202);
    const self = await request(a!.listener).get(new URL(found[0]!._links.self!.href).pathname).auth('merchant', 'secret').set('Host', HOST).set('Accept', QUERY_TYPE);
    expect([self.status, self.body.lastEvent, self.body.events.map((e: { eventName: string }) => e.eventName)]).toEqual([200, 'sentForRefund', ['sentForSettlement', 'sentForRefund']]);
    // A reset through one: the reference is unknown everywhere.
    expect((await request(b!.listener).post('/_sim/reset')).status).toBe(204);
    expect(itemsOf((await query(c!, 'order-1')).body)).toEqual([]);
    expect(itemsOf((await query(a!, 'order-1')).body)).toEqual([]);
  });
});

/**
 * Duplicate references (contract 4.4, issue 26): a sale whose transactionReference the tenant already used with
 * the same merchant entity answers 400 transactionHasAlreadyBeenProcessed, and nothing changes. A refused sale
 * counts as used; a sale answered by a scripted error or fault, or by the ERROR card holder's 500, does not.
 * Runs on both stores (the "http (redis)" project).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, START, handlerOf, testSimulator } from '../support/sim.js';

const DEFAULTS = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as {
  credentials: { username: string; password: string; entities: string[] }[];
  entities: Record<string, unknown>;
  bins: unknown[];
};
/** Two tenants; `merchant` may use two entities. */
const FIXTURES = {
  ...DEFAULTS,
  credentials: [
    { username: 'merchant', password: 'secret', entities: ['default', 'second'] },
    { username: 'other', password: 'secret', entities: ['default'] },
  ],
  entities: { ...DEFAULTS.entities, second: DEFAULTS.entities.default },
};

const sim = (): Simulator => testSimulator({ now: START, frozen: true, fixtures: FIXTURES as never });
const payments = async (s: Simulator): Promise<{ transactionReference: string; tenant: string }[]> =>
  (await request(handlerOf(s)).get('/_sim/payments').set('Host', HOST)).body.payments;
const withRules = (rules: unknown[]): Simulator => {
  const s = sim();
  s.loadScenarios([{ name: 'test', rules } as never]);
  return s;
};

describe('a sale whose transactionReference was used before', () => {
  it('answers 400 transactionHasAlreadyBeenProcessed, and makes no second payment', async () => {
    const s = sim();
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'order-42' }))).status).toBe(201);
    const again = await sale(s, saleBody(plainCard({ cardHolderName: 'Irene Adler' }), { transactionReference: 'order-42', instruction: { value: { amount: 999, currency: 'GBP' }, narrative: { line1: 'x' }, paymentInstrument: plainCard() } }));
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ errorName: 'transactionHasAlreadyBeenProcessed', message: "transactionReference 'order-42' was already used for a payment of merchant entity 'default'" });
    expect((await payments(s)).map((p) => p.transactionReference)).toEqual(['order-42']);
  });

  it('counts a refused sale as used', async () => {
    const s = sim();
    expect((await sale(s, saleBody(plainCard({ cardHolderName: 'REFUSED' }), { transactionReference: 'order-7' }))).body.outcome).toBe('refused');
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'order-7' }))).body.errorName).toBe('transactionHasAlreadyBeenProcessed');
  });

  it('does not count the ERROR card holder’s 500, a scripted error or a scripted fault: the retry goes through', async () => {
    const s = sim();
    expect((await sale(s, saleBody(plainCard({ cardHolderName: 'ERROR' }), { transactionReference: 'order-e' }))).status).toBe(500);
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'order-e' }))).status).toBe(201);
    const scripted = withRules([
      { when: { operation: 'sale', transactionReference: 'order-s', times: 1 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } },
      { when: { operation: 'sale', transactionReference: 'order-f', times: 1 }, then: { fault: 'connectionReset' } },
    ]);
    expect((await sale(scripted, saleBody(plainCard(), { transactionReference: 'order-s' }))).status).toBe(503);
    expect((await sale(scripted, saleBody(plainCard(), { transactionReference: 'order-s' }))).status).toBe(201);
    await expect(sale(scripted, saleBody(plainCard(), { transactionReference: 'order-f' }))).rejects.toThrow();
    expect((await sale(scripted, saleBody(plainCard(), { transactionReference: 'order-f' }))).status).toBe(201);
    expect((await payments(scripted)).map((p) => p.transactionReference).sort()).toEqual(['order-f', 'order-s']);
  });

  it('is per tenant and per merchant entity', async () => {
    const s = sim();
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'shared' }))).status).toBe(201);
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'shared', merchant: { entity: 'second' } }))).status).toBe(201);
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'shared' }), 'other', 'secret')).status).toBe(201);
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'shared', merchant: { entity: 'second' } }))).status).toBe(400);
    expect((await payments(s)).length).toBe(3);
  });

  it('leaves a token used by nothing: its expiry does not move', async () => {
    const s = sim();
    const type = 'application/vnd.service.tokens-v1.hal+json';
    const created = await request(handlerOf(s)).post('/tokens').auth('merchant', 'secret').set('Host', HOST).set('Accept', type).set('Content-Type', type)
      .send(JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } }));
    const href = created.body._links['tokens:token'].href as string;
    expect((await sale(s, saleBody(plainCard(), { transactionReference: 'tok-1' }))).status).toBe(201);
    // Past half the token's life, a use extends it: a refused duplicate must not. (The control API's list is no use.)
    await request(handlerOf(s)).post('/_sim/clock/advance').set('Host', HOST).send({ by: 'P5D' });
    const expiry = async (): Promise<string> => (await request(handlerOf(s)).get('/_sim/tokens?tenant=merchant').set('Host', HOST)).body.tokens[0].tokenExpiryDateTime;
    expect(await expiry()).toBe('2030-01-08T00:00:00Z');
    expect((await sale(s, saleBody({ type: 'card/token', href }, { transactionReference: 'tok-1' }))).status).toBe(400);
    expect(await expiry()).toBe('2030-01-08T00:00:00Z');
    expect((await sale(s, saleBody({ type: 'card/token', href }, { transactionReference: 'tok-2' }))).status).toBe(201);
    expect(await expiry()).toBe('2030-01-15T00:00:00Z');
  });
});

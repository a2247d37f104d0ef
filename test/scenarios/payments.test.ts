/** Scenarios for the life after the sale: payment operations, `settlement: failed`, `refund: {failed}`. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { SALE_REQUEST, SALE_RESPONSE, sale, saleBody } from '../support/sale.js';
import { HOST, START, handlerOf, pathOf, scenarioFile, testSimulator } from '../support/sim.js';

type Links = Record<string, { href: string }>;

const post = (sim: Simulator, href: string, body?: unknown) => {
  const req = request(handlerOf(sim)).post(pathOf(href)).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE);
  return body === undefined ? req.send() : req.set('Content-Type', SALE_REQUEST).send(JSON.stringify(body));
};
const lastEvent = async (sim: Simulator, links: Links): Promise<string> =>
  (await request(handlerOf(sim)).get(pathOf(links['payments:events']?.href ?? '')).auth('merchant', 'secret').set('Accept', SALE_RESPONSE)).body.lastEvent;
const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });
const links = async (sim: Simulator): Promise<Links> => (await sale(sim, saleBody(undefined, { transactionReference: 'order-0001' }))).body._links;
const partial = (amount: number) => ({ value: { amount, currency: 'GBP' }, reference: `r-${amount}` });

const withRules = (rules: unknown[]): Simulator => {
  const sim = testSimulator({ now: START, frozen: true });
  sim.loadScenarios([{ name: 'test', rules } as never]);
  return sim;
};

describe('shipped payment scenarios', () => {
  it('settlement-failed.yaml: the sale ends in settlementFailed, and refunds are no longer allowed', async () => {
    const sim = testSimulator({ now: START, frozen: true, scenarios: [scenarioFile('settlement-failed.yaml')] });
    const l = await links(sim);
    expect(await lastEvent(sim, l)).toBe('sentForSettlement');
    await advance(sim, 'P1D');
    expect(await lastEvent(sim, l)).toBe('settlementFailed');
    expect((await post(sim, l['payments:refund']?.href ?? '')).status).toBe(409);
  });

  it('refund-failed.yaml: a refund shows sentForRefund, then refundFailed, and the amount can be refunded again', async () => {
    const sim = testSimulator({ now: START, frozen: true, scenarios: [scenarioFile('refund-failed.yaml')] });
    const l = await links(sim);
    expect((await post(sim, l['payments:refund']?.href ?? '')).status).toBe(202);
    expect(await lastEvent(sim, l)).toBe('sentForRefund');
    await advance(sim, 'P1D');
    expect(await lastEvent(sim, l)).toBe('refundFailed');
    expect((await post(sim, l['payments:partialRefund']?.href ?? '', partial(250))).status).toBe(202);
  });
});

describe('rules on payment operations', () => {
  it('a refund rule with refund.failed fails that refund only', async () => {
    const sim = withRules([{ when: { operation: 'partialRefund', amount: 13 }, then: { refund: { failed: { code: '5', description: 'REFUSED' } } } }]);
    const l = await links(sim);
    await post(sim, l['payments:partialRefund']?.href ?? '', partial(13));
    await post(sim, l['payments:partialRefund']?.href ?? '', partial(20));
    await advance(sim, 'P2D');
    const state = sim.exportState();
    const types = (state as unknown as { payments: { events: { type: string; amount: number }[] }[] }).payments[0]?.events.map((e) => `${e.type}:${e.amount}`);
    expect(types).toEqual(['sentForSettlement:250', 'sentForRefund:13', 'sentForRefund:20', 'settled:250', 'refundFailed:13']);
  });

  it.each(['refund', 'reversal', 'paymentEvents'])('a scripted error on %s answers it and changes nothing', async (operation) => {
    const sim = withRules([{ when: { operation }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }]);
    const l = await links(sim);
    const rel = operation === 'paymentEvents' ? 'payments:events' : `payments:${operation}`;
    const res =
      operation === 'paymentEvents'
        ? await request(handlerOf(sim)).get(pathOf(l[rel]?.href ?? '')).auth('merchant', 'secret').set('Accept', SALE_RESPONSE)
        : await post(sim, l[rel]?.href ?? '');
    expect(res.status).toBe(503);
    expect(sim.requests().at(-1)).toMatchObject({ operation, status: 503, rule: 'test#0' });
    sim.loadScenarios([]);
    expect(await lastEvent(sim, l)).toBe('sentForSettlement');
  });

  it('matches a refund by the sale’s transactionReference and amount', async () => {
    const sim = withRules([{ when: { operation: 'refund', transactionReference: 'order-0001', amount: 250 }, then: { error: { status: 500, errorName: 'internalErrorOccurred' } } }]);
    const l = await links(sim);
    expect((await post(sim, l['payments:refund']?.href ?? '')).status).toBe(500);
    expect((await post(sim, l['payments:reversal']?.href ?? '')).status).toBe(202);
  });

  it.each([
    ['settlement', { operation: 'refund' }, { settlement: 'failed' }, 'applies to sales only, and this rule matches refund'],
    ['refund', { operation: 'reversal' }, { refund: { failed: { code: '5', description: 'REFUSED' } } }, 'applies to sales and refunds only, and this rule matches reversal'],
  ])('refuses %s on a rule that cannot use it', (key, when, then, message) => {
    const sim = testSimulator();
    expect(() => sim.loadScenarios([{ name: 'bad', rules: [{ when, then }] } as never])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ validationErrors: [expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath: `$[0].rules[0].then.${key}`, message: expect.stringContaining(message) })] }) }),
    );
  });

  it('refuses a refund failure without its code', () => {
    const sim = testSimulator();
    expect(() => sim.loadScenarios([{ name: 'bad', rules: [{ then: { refund: { failed: { description: 'X' } } } }] } as never])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ validationErrors: [expect.objectContaining({ errorName: 'fieldIsMissing', jsonPath: '$[0].rules[0].then.refund.failed.code' })] }) }),
    );
  });
});

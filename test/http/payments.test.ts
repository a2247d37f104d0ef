import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { SALE_REQUEST, SALE_RESPONSE, plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, START, handlerOf, pathOf, testSimulator } from '../support/sim.js';

const BASE = `http://${HOST}`;
type Links = Record<string, { href: string }>;

const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });

function post(sim: Simulator, href: string, body?: unknown, user = 'merchant', password = 'secret') {
  const req = request(handlerOf(sim)).post(pathOf(href)).auth(user, password).set('Host', HOST).set('Accept', SALE_RESPONSE);
  return body === undefined ? req.send() : req.set('Content-Type', SALE_REQUEST).send(JSON.stringify(body));
}

const events = (sim: Simulator, href: string, user = 'merchant', password = 'secret') =>
  request(handlerOf(sim)).get(pathOf(href)).auth(user, password).set('Host', HOST).set('Accept', SALE_RESPONSE);

const partial = (amount: number, currency = 'GBP', reference = `refund-${amount}`) => ({ value: { amount, currency }, reference });

async function approvedSale(sim: Simulator, overrides: Record<string, unknown> = {}): Promise<Links> {
  const res = await sale(sim, saleBody(plainCard(), overrides));
  if (res.status !== 201) throw new Error(res.text);
  return res.body._links as Links;
}

const lastEvent = async (sim: Simulator, links: Links): Promise<string> => {
  const res = await events(sim, links['payments:events']?.href ?? '');
  expect(res.status).toBe(200);
  return res.body.lastEvent as string;
};

describe('the links of a sale', () => {
  it('gives an approved sale refund, partial refund, reversal and events links, and the payments curie', async () => {
    const res = await sale(testSimulator(), saleBody());
    expect(res.status).toBe(201);
    const links = res.body._links;
    expect(Object.keys(links).sort()).toEqual(['curies', 'payments:events', 'payments:partialRefund', 'payments:refund', 'payments:reversal']);
    expect(links['payments:refund'].href).toMatch(new RegExp(`^${BASE}/payments/settlements/refunds/full/[A-Za-z0-9_-]+$`));
    expect(links['payments:partialRefund'].href).toMatch(new RegExp(`^${BASE}/payments/settlements/refunds/partials/[A-Za-z0-9_-]+$`));
    expect(links['payments:reversal'].href).toMatch(new RegExp(`^${BASE}/payments/sales/reversals/[A-Za-z0-9_-]+$`));
    expect(links['payments:events'].href).toMatch(new RegExp(`^${BASE}/payments/events/[A-Za-z0-9_-]+$`));
    expect(links.curies).toEqual([{ name: 'payments', href: `${BASE}/rels/payments/{rel}`, templated: true }]);
  });

  it('writes links on any Host as valid JSON, the Host escaped', async () => {
    const res = await request(handlerOf(testSimulator({ allowedHosts: ['*'] })))
      .post('/payments/sales/migrateCardOnFile')
      .auth('merchant', 'secret')
      .set('Host', 'odd"host\\')
      .set('Content-Type', SALE_REQUEST)
      .set('Accept', SALE_RESPONSE)
      .send(JSON.stringify(saleBody()));
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text)._links['payments:events'].href).toMatch(/^http:\/\/odd"host\\\/payments\/events\/[\w-]+$/);
    expect(JSON.parse(res.text)._links.curies[0].href).toBe('http://odd"host\\/rels/payments/{rel}');
  });

  it('gives a refused sale the events link only, and its events say refused', async () => {
    const sim = testSimulator();
    const res = await sale(sim, saleBody(plainCard({ cardHolderName: 'REFUSED' })));
    expect(res.body.outcome).toBe('refused');
    expect(Object.keys(res.body._links).sort()).toEqual(['curies', 'payments:events']);
    expect(await lastEvent(sim, res.body._links)).toBe('refused');
  });

  it('makes no payment for a scripted ERROR', async () => {
    const sim = testSimulator();
    const res = await sale(sim, saleBody(plainCard({ cardHolderName: 'ERROR' })));
    expect(res.status).toBe(500);
    expect(res.body._links).toBeUndefined();
  });
});

describe('the life of a payment over HTTP', () => {
  it('is sentForSettlement, then settled once --settlement-delay has passed, to the millisecond', async () => {
    const sim = testSimulator({ now: START, frozen: true, settlementDelay: 'PT2H' });
    const links = await approvedSale(sim);
    expect(await lastEvent(sim, links)).toBe('sentForSettlement');
    await advance(sim, 'PT1H59M59.999S');
    expect(await lastEvent(sim, links)).toBe('sentForSettlement');
    await advance(sim, 'PT0.001S');
    expect(await lastEvent(sim, links)).toBe('settled');
  });

  it('answers a refund 202 with links to what may follow, and the events say sentForRefund', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    const res = await post(sim, links['payments:refund']?.href ?? '');
    expect(res.status).toBe(202);
    expect(res.headers['content-type']).toBe(SALE_RESPONSE);
    expect(Object.keys(res.body._links).sort()).toEqual(['curies', 'payments:events']);
    expect(await lastEvent(sim, links)).toBe('sentForRefund');
  });

  it('answers partial refunds 202 while they stay within the amount, then 409 actionIsNotAllowed', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    const href = links['payments:partialRefund']?.href ?? '';
    const first = await post(sim, href, partial(100));
    expect(first.status).toBe(202);
    expect(Object.keys(first.body._links).sort()).toEqual(['curies', 'payments:events', 'payments:partialRefund', 'payments:refund']);
    expect((await post(sim, href, partial(100))).status).toBe(202);
    const third = await post(sim, href, partial(51));
    expect(third.status).toBe(409);
    expect(third.headers['content-type']).toMatch(/^application\/json/);
    expect(third.body).toEqual({ errorName: 'actionIsNotAllowed', message: expect.stringContaining('51 exceeds the 50') });
    expect((await post(sim, href, partial(50))).status).toBe(202);
  });

  it('cancels on a reversal before settlement, and never settles', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    const res = await post(sim, links['payments:reversal']?.href ?? '');
    expect(res.status).toBe(202);
    expect(Object.keys(res.body._links)).toEqual(['payments:events', 'curies']);
    await advance(sim, 'P2D');
    expect(await lastEvent(sim, links)).toBe('cancelled');
  });

  it('sends for refund on a reversal after settlement', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    await advance(sim, 'P1D');
    expect((await post(sim, links['payments:reversal']?.href ?? '')).status).toBe(202);
    expect(await lastEvent(sim, links)).toBe('sentForRefund');
  });

  it('answers a full refund after settlement 202: sentForRefund', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    await advance(sim, 'P1D');
    expect((await post(sim, links['payments:refund']?.href ?? '')).status).toBe(202);
    expect(await lastEvent(sim, links)).toBe('sentForRefund');
  });

  it.each(['payments:refund', 'payments:partialRefund', 'payments:reversal'])('refuses %s after a failed settlement with 409', async (rel) => {
    const sim = testSimulator({ now: START, frozen: true });
    sim.loadScenarios([{ name: 'fails', rules: [{ when: { operation: 'sale' }, then: { settlement: 'failed' } }] }]);
    const links = await approvedSale(sim);
    await advance(sim, 'P1D');
    expect(await lastEvent(sim, links)).toBe('settlementFailed');
    const res = await post(sim, links[rel]?.href ?? '', rel === 'payments:partialRefund' ? partial(1) : undefined);
    expect(res.status).toBe(409);
    expect(res.body.errorName).toBe('actionIsNotAllowed');
  });

  it('refuses a refund after a reversal that came after settlement with 409', async () => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    await advance(sim, 'P1D');
    expect((await post(sim, links['payments:reversal']?.href ?? '')).status).toBe(202);
    expect((await post(sim, links['payments:refund']?.href ?? '')).status).toBe(409);
  });

  const refused: [string, (links: Links) => [string, unknown?][], [string, unknown?]][] = [
    ['a refund after a full refund', (l) => [[l['payments:refund']?.href ?? '']], ['payments:refund']],
    ['a partial refund after a full refund', (l) => [[l['payments:refund']?.href ?? '']], ['payments:partialRefund', partial(1)]],
    ['a reversal after a reversal', (l) => [[l['payments:reversal']?.href ?? '']], ['payments:reversal']],
    ['a reversal after a refund', (l) => [[l['payments:refund']?.href ?? '']], ['payments:reversal']],
    ['a reversal after a partial refund', (l) => [[l['payments:partialRefund']?.href ?? '', partial(1)]], ['payments:reversal']],
    ['a partial refund after a reversal', (l) => [[l['payments:reversal']?.href ?? '']], ['payments:partialRefund', partial(1)]],
    ['a refund after a reversal', (l) => [[l['payments:reversal']?.href ?? '']], ['payments:refund']],
    ['a partial refund beyond the sale amount', () => [], ['payments:partialRefund', partial(251)]],
  ];
  it.each(refused)('refuses %s with 409 actionIsNotAllowed', async (_name, before, [rel, body]) => {
    const sim = testSimulator({ now: START, frozen: true });
    const links = await approvedSale(sim);
    for (const [href, b] of before(links)) expect((await post(sim, href, b)).status).toBe(202);
    const history = await lastEvent(sim, links);
    const res = await post(sim, links[rel]?.href ?? '', body);
    expect(res.status).toBe(409);
    expect(res.body.errorName).toBe('actionIsNotAllowed');
    expect(await lastEvent(sim, links)).toBe(history);
  });

  it('refuses a refund of a refused sale with 409: every link of a payment ends in its one ref, the path names the action', async () => {
    const sim = testSimulator();
    const res = await sale(sim, saleBody(plainCard({ cardHolderName: 'REFUSED' })));
    const ref = pathOf(res.body._links['payments:events'].href).split('/').pop();
    const refund = await post(sim, `${BASE}/payments/settlements/refunds/full/${ref}`);
    expect(refund.status).toBe(409);
    expect(refund.body).toEqual({ errorName: 'actionIsNotAllowed', message: 'A refund is not allowed: the sale was refused' });
  });

  it('ends every link of a payment in the same ref', async () => {
    const links = await approvedSale(testSimulator());
    const refs = Object.entries(links).filter(([rel]) => rel !== 'curies').map(([, l]) => l.href.split('/').pop());
    expect(new Set(refs).size).toBe(1);
  });
});

describe('payments everywhere else', () => {
  it('counts payments held in GET /_sim/metrics', async () => {
    const sim = testSimulator();
    await approvedSale(sim);
    await sale(sim, saleBody(plainCard({ cardHolderName: 'REFUSED' })));
    const res = await request(handlerOf(sim)).get('/_sim/metrics');
    expect(res.text).toMatch(/^token_sim_payments 2$/m);
  });

  it('journals refunds, reversals and events reads under their own operation names', async () => {
    const sim = testSimulator();
    const links = await approvedSale(sim);
    await post(sim, links['payments:partialRefund']?.href ?? '', partial(10));
    await events(sim, links['payments:events']?.href ?? '');
    await post(sim, links['payments:refund']?.href ?? '');
    await post(sim, links['payments:reversal']?.href ?? '');
    const res = await request(handlerOf(sim)).get('/_sim/requests');
    expect(res.body.requests.map((r: { operation: string; status: number }) => [r.operation, r.status])).toEqual([
      ['sale', 201],
      ['partialRefund', 202],
      ['paymentEvents', 200],
      ['refund', 202],
      ['reversal', 409],
    ]);
  });

  it('carries payments through a state export and import, refs and all', async () => {
    const sim = testSimulator({ seed: 'payments', now: START, frozen: true });
    const links = await approvedSale(sim, { transactionReference: 'order-0001' });
    await post(sim, links['payments:partialRefund']?.href ?? '', partial(10));
    const state = (await request(handlerOf(sim)).get('/_sim/state')).body;
    expect(state.payments).toHaveLength(1);
    expect(state.payments[0]).toMatchObject({ tenant: 'merchant', amount: 250, refunded: 10, currency: 'GBP', transactionReference: 'order-0001' });
    const other = testSimulator({ seed: 'payments' });
    expect((await request(handlerOf(other)).put('/_sim/state').send(state)).status).toBe(204);
    expect(await lastEvent(other, links)).toBe('sentForRefund');
    await advance(other, 'P1D');
    expect(await lastEvent(other, links)).toBe('settled');
    expect((await post(other, links['payments:partialRefund']?.href ?? '', partial(241))).status).toBe(409);
    expect((await post(other, links['payments:partialRefund']?.href ?? '', partial(240))).status).toBe(202);
  });

  it('refuses an imported pending payment without its scheduled settlement', async () => {
    const sim = testSimulator({ seed: 'payments' });
    await approvedSale(sim);
    const state = (await request(handlerOf(sim)).get('/_sim/state')).body;
    expect(state.payments[0].scheduled).toEqual([expect.objectContaining({ seq: 2, type: 'settled' })]);
    state.payments[0].scheduled = [];
    const res = await request(handlerOf(testSimulator({ seed: 'payments' }))).put('/_sim/state').send(state);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath: '$.payments[0].scheduled' })]);
  });

  it('refuses an imported payment of a tenant that is not configured', async () => {
    const sim = testSimulator({ seed: 'payments', users: ['bob:builder'] });
    await approvedSale(sim);
    const state = (await request(handlerOf(sim)).get('/_sim/state')).body;
    state.payments[0].tenant = 'mallory';
    const res = await request(handlerOf(testSimulator({ seed: 'payments' }))).put('/_sim/state').send(state);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath: '$.payments[0].tenant' })]);
  });
});

describe('refund request checks', () => {
  it.each([
    [{ value: { amount: 10, currency: 'EUR' }, reference: 'r' }, [{ errorName: 'fieldHasInvalidValue', jsonPath: '$.value.currency' }]],
    [{ value: { amount: 0, currency: 'GBP' }, reference: 'r' }, [{ errorName: 'integerIsTooSmall', jsonPath: '$.value.amount' }]],
    [{ value: { amount: 1.5, currency: 'GBP' }, reference: 'r' }, [{ errorName: 'fieldMustBeInteger', jsonPath: '$.value.amount' }]],
    [{ value: { amount: 10 }, reference: '' }, [{ errorName: 'fieldIsMissing', jsonPath: '$.value.currency' }, { errorName: 'stringIsTooShort', jsonPath: '$.reference' }]],
    [{ value: { amount: 10, currency: 'GBP' }, reference: 'x'.repeat(129) }, [{ errorName: 'stringIsTooLong', jsonPath: '$.reference' }]],
    [{ value: { amount: 10, currency: 'GBP' } }, [{ errorName: 'fieldIsMissing', jsonPath: '$.reference' }]],
  ])('answers 400 bodyDoesNotMatchSchema for %j', async (body, problems) => {
    const sim = testSimulator();
    const links = await approvedSale(sim);
    const res = await post(sim, links['payments:partialRefund']?.href ?? '', body);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors.map((p: { errorName: string; jsonPath: string }) => ({ errorName: p.errorName, jsonPath: p.jsonPath }))).toEqual(problems);
  });

  it('answers 400 urlContainsInvalidValue for a ref that does not decrypt', async () => {
    const res = await post(testSimulator(), `${BASE}/payments/settlements/refunds/full/not-a-ref`);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('urlContainsInvalidValue');
  });

  it('answers 404 resourceNotFound for another tenant’s ref, and 401 without credentials', async () => {
    const sim = testSimulator({ users: ['bob:builder'] });
    const links = await approvedSale(sim);
    const res = await post(sim, links['payments:refund']?.href ?? '', undefined, 'bob', 'builder');
    expect(res.status).toBe(404);
    expect(res.body.errorName).toBe('resourceNotFound');
    const anonymous = await request(handlerOf(sim)).post(pathOf(links['payments:refund']?.href ?? '')).set('Accept', SALE_RESPONSE);
    expect(anonymous.status).toBe(401);
    expect(await lastEvent(sim, links)).toBe('sentForSettlement');
  });

  it('answers 404 resourceNotFound once a reset has cleared the payment', async () => {
    const sim = testSimulator();
    const links = await approvedSale(sim);
    await request(handlerOf(sim)).post('/_sim/reset');
    expect((await events(sim, links['payments:events']?.href ?? '')).status).toBe(404);
  });

  it.each([
    ['no Accept', { 'Content-Type': SALE_REQUEST }, 400, 'headerIsMissing'],
    ['the token media type in Accept', { 'Content-Type': SALE_REQUEST, Accept: 'application/vnd.service.tokens-v1.hal+json' }, 406, 'headerHasInvalidValue'],
    ['another Content-Type', { Accept: SALE_RESPONSE, 'Content-Type': 'application/json' }, 415, 'headerHasInvalidValue'],
  ])('checks headers as the sale does: %s', async (_name, headers, status, errorName) => {
    const sim = testSimulator();
    const links = await approvedSale(sim);
    let req = request(handlerOf(sim)).post(pathOf(links['payments:partialRefund']?.href ?? '')).auth('merchant', 'secret');
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    const res = await req.send(JSON.stringify(partial(1)));
    expect(res.status).toBe(status);
    expect(res.body.errorName).toBe(errorName);
  });

  it('answers 405 with Allow for the wrong method', async () => {
    const sim = testSimulator();
    const links = await approvedSale(sim);
    const res = await request(handlerOf(sim)).get(pathOf(links['payments:refund']?.href ?? '')).auth('merchant', 'secret').set('Accept', SALE_RESPONSE);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

/**
 * Payment queries (contract 4.4, decision 0057): GET /paymentQueries/payments?transactionReference= answers the
 * tenant's payments of that reference, newest first, in the vendor's Payment Queries v1 shape; the `self` link
 * answers one payment with its events. Refusals, headers, the journal and scenario rules.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { SALE_RESPONSE, plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, handlerOf, pathOf, testSimulator } from '../support/sim.js';

const QUERY_TYPE = 'application/vnd.service.payment-queries-v1.hal+json';
const BASE = `http://${HOST}`;
type Links = Record<string, { href: string } | unknown[]>;

const FIXTURES = {
  credentials: [
    { username: 'merchant', password: 'secret', entities: ['default', 'second'] },
    { username: 'other', password: 'pw', entities: ['default'] },
  ],
  entities: {
    default: { currencies: ['GBP', 'EUR'], networks: ['VISA'] },
    second: { currencies: ['GBP', 'EUR'], networks: ['VISA'] },
  },
  bins: [{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }],
};

const query = (sim: Simulator, q: string, user = 'merchant', password = 'secret') =>
  request(handlerOf(sim)).get(`/paymentQueries/payments${q}`).auth(user, password).set('Accept', QUERY_TYPE).set('Host', HOST);
const follow = (sim: Simulator, href: string, user = 'merchant', password = 'secret') =>
  request(handlerOf(sim)).get(pathOf(href)).auth(user, password).set('Accept', QUERY_TYPE).set('Host', HOST);
const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });

/** A sale that must answer 201; its links. */
async function sold(sim: Simulator, body: Record<string, unknown>, user = 'merchant', password = 'secret'): Promise<Links> {
  const res = await sale(sim, body, user, password);
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${res.text}`);
  return res.body._links as Links;
}

const hrefOf = (links: Links, rel: string): string => (links[rel] as { href: string }).href;
/** The paymentId of a sale: the ref its links end in. */
const idOf = (links: Links): string => hrefOf(links, 'payments:events').split('/').pop() ?? '';
const paymentsOf = (body: unknown): Record<string, unknown>[] => (body as { _embedded: { payments: Record<string, unknown>[] } })._embedded.payments;
const withSelf = (links: Links): Links => ({ self: { href: `${BASE}/paymentQueries/payments/${idOf(links)}` }, ...links });

describe('GET /paymentQueries/payments?transactionReference=', () => {
  it('answers the tenant’s payments of that reference under every entity, newest first, in the vendor’s shape', async () => {
    const sim = testSimulator({ fixtures: FIXTURES });
    const first = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }));
    await advance(sim, 'PT1H');
    const refused = plainCard({ cardHolderName: 'REFUSED51' });
    const second = await sold(sim, { ...saleBody(refused, { transactionReference: 'order-1', merchant: { entity: 'second' } }), instruction: { value: { amount: 900, currency: 'EUR' }, narrative: { line1: 'x' }, paymentInstrument: refused } });
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-2' }));
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }), 'other', 'pw');

    const res = await query(sim, '?transactionReference=order-1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(QUERY_TYPE);
    expect(res.body).toEqual({
      _embedded: {
        payments: [
          {
            paymentId: idOf(second),
            timestamp: '2030-01-01T01:00:00Z',
            transactionReference: 'order-1',
            entity: 'second',
            outcome: 'refused',
            lastEvent: 'refused',
            value: { amount: 900, currency: 'EUR' },
            _links: withSelf(second),
          },
          {
            paymentId: idOf(first),
            timestamp: '2030-01-01T00:00:00Z',
            transactionReference: 'order-1',
            entity: 'default',
            outcome: 'sentForSettlement',
            lastEvent: 'sentForSettlement',
            value: { amount: 250, currency: 'GBP' },
            _links: withSelf(first),
          },
        ],
      },
    });
    // The members in the contract's order, `_links` last and `self` first among them.
    expect(Object.keys(paymentsOf(res.body)[0]!)).toEqual(['paymentId', 'timestamp', 'transactionReference', 'entity', 'outcome', 'lastEvent', 'value', '_links']);
    expect(Object.keys(paymentsOf(res.body)[0]!._links as object)[0]).toBe('self');
  });

  it('answers an empty list for a reference that is unknown, or only another tenant’s', async () => {
    const sim = testSimulator({ fixtures: FIXTURES });
    await sold(sim, saleBody(plainCard(), { transactionReference: 'theirs' }), 'other', 'pw');
    await sold(sim, saleBody(plainCard(), { transactionReference: 'mine' }));
    for (const reference of ['theirs', 'nobody', 'MINE', 'min']) {
      const res = await query(sim, `?transactionReference=${reference}`);
      expect([reference, res.status, res.body]).toEqual([reference, 200, { _embedded: { payments: [] } }]);
    }
    expect(paymentsOf((await query(sim, '?transactionReference=theirs', 'other', 'pw')).body)).toHaveLength(1);
  });

  it('finds a reference with any characters, percent-encoded in the query', async () => {
    const sim = testSimulator();
    const reference = 'Memory265-13/08/1876 & co?=#';
    const links = await sold(sim, saleBody(plainCard(), { transactionReference: reference }));
    const res = await query(sim, `?transactionReference=${encodeURIComponent(reference)}&page=2`);
    expect(paymentsOf(res.body).map((p) => [p.paymentId, p.transactionReference])).toEqual([[idOf(links), reference]]);
  });

  it('shows the payment as it is now: events caught up by the virtual clock, the links of what it allows now', async () => {
    const sim = testSimulator({ settlementDelay: 'P1D' });
    const links = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }));
    await advance(sim, 'P1D');
    const settled = paymentsOf((await query(sim, '?transactionReference=order-1')).body)[0]!;
    expect(settled.lastEvent).toBe('settled');
    expect(settled.outcome).toBe('sentForSettlement');
    const refund = await request(handlerOf(sim)).post(pathOf(hrefOf(links, 'payments:refund'))).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE).send();
    expect(refund.status).toBe(202);
    const refunded = paymentsOf((await query(sim, '?transactionReference=order-1')).body)[0]!;
    expect(refunded.lastEvent).toBe('sentForRefund');
    expect(refunded._links).toEqual({ self: { href: `${BASE}/paymentQueries/payments/${idOf(links)}` }, ...refund.body._links });
    expect(Object.keys(refunded._links as object).sort()).toEqual(['curies', 'payments:events', 'self']);
  });
});

describe('GET /paymentQueries/payments/{paymentId}', () => {
  it('answers the payment of a query’s self link with its events, oldest first', async () => {
    const sim = testSimulator({ settlementDelay: 'PT2H' });
    const links = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-7' }));
    await advance(sim, 'PT3H');
    const listed = paymentsOf((await query(sim, '?transactionReference=order-7')).body)[0]!;
    const res = await follow(sim, (listed._links as Record<string, { href: string }>).self!.href);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(QUERY_TYPE);
    expect(res.body).toEqual({
      ...listed,
      events: [
        { eventName: 'sentForSettlement', timestamp: '2030-01-01T00:00:00Z' },
        { eventName: 'settled', timestamp: '2030-01-01T02:00:00Z' },
      ],
    });
    expect(Object.keys(res.body as object)).toEqual(['paymentId', 'timestamp', 'transactionReference', 'entity', 'outcome', 'lastEvent', 'value', 'events', '_links']);
    expect(res.body.paymentId).toBe(idOf(links));
  });

  it('shows a refused sale’s single event, and the events its state brings later', async () => {
    const sim = testSimulator();
    const refused = await sold(sim, saleBody(plainCard({ cardHolderName: 'REFUSED' }), { transactionReference: 'r-1' }));
    const res = await follow(sim, `${BASE}/paymentQueries/payments/${idOf(refused)}`);
    expect([res.body.outcome, res.body.lastEvent, res.body.events]).toEqual(['refused', 'refused', [{ eventName: 'refused', timestamp: '2030-01-01T00:00:00Z' }]]);
  });

  it('answers 404 resourceNotFound for an id that names no payment of the tenant', async () => {
    const sim = testSimulator({ fixtures: FIXTURES });
    const theirs = await sold(sim, saleBody(plainCard(), { transactionReference: 'x' }), 'other', 'pw');
    const tokenRef = 'AAAAAAAAAAAAAAAAAAAAAA';
    for (const id of [idOf(theirs), tokenRef, 'nope', 'x'.repeat(300), '%00']) {
      const res = await follow(sim, `${BASE}/paymentQueries/payments/${id}`);
      expect([id, res.status, res.body.errorName]).toEqual([id, 404, 'resourceNotFound']);
    }
    expect((await follow(sim, `${BASE}/paymentQueries/payments/${idOf(theirs)}`, 'other', 'pw')).status).toBe(200);
  });
});

describe('payment query refusals', () => {
  const missing = { errorName: 'fieldIsMissing', message: 'transactionReference is required (queries by date range are not simulated)' };
  it.each([
    ['', [missing]],
    ['?', [missing]],
    ['?startDate=2030-01-01T00:00:00Z&endDate=2030-01-02T00:00:00Z', [missing]],
    ['?TransactionReference=order-1', [missing]],
    ['?transactionReference=', [{ errorName: 'fieldIsEmpty', message: 'transactionReference must not be empty' }]],
    ['?transactionReference=a&transactionReference=b', [{ errorName: 'fieldHasInvalidValue', message: 'transactionReference must be given once' }]],
  ])('answers 400 urlContainsInvalidValue for GET /paymentQueries/payments%s', async (q, validationErrors) => {
    const res = await query(testSimulator(), q);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'urlContainsInvalidValue', message: 'The query of GET /paymentQueries/payments is not valid', validationErrors });
  });

  it('checks credentials, then Accept: the payment queries media type, */* or application/*', async () => {
    const sim = testSimulator();
    const path = '/paymentQueries/payments?transactionReference=a';
    const noAuth = await request(handlerOf(sim)).get(path).set('Accept', QUERY_TYPE);
    expect([noAuth.status, noAuth.body.errorName, noAuth.headers['www-authenticate']]).toEqual([401, 'accessDenied', 'Basic realm="token-sim"']);
    const noAccept = await request(handlerOf(sim)).get(path).auth('merchant', 'secret');
    expect([noAccept.status, noAccept.body.errorName, noAccept.body.headerName]).toEqual([400, 'headerIsMissing', 'Accept']);
    const saleType = await request(handlerOf(sim)).get(path).auth('merchant', 'secret').set('Accept', SALE_RESPONSE);
    expect([saleType.status, saleType.body.errorName, saleType.body.headerName]).toEqual([406, 'headerHasInvalidValue', 'Accept']);
    for (const accept of ['*/*', 'application/*', `${QUERY_TYPE}; charset=utf-8`]) {
      expect((await request(handlerOf(sim)).get(path).auth('merchant', 'secret').set('Accept', accept)).status).toBe(200);
    }
  });

  it('names the vendor in the media type', async () => {
    const res = await request(handlerOf(testSimulator({ vendor: 'worldpay' })))
      .get('/paymentQueries/payments?transactionReference=a')
      .auth('merchant', 'secret')
      .set('Accept', 'application/vnd.worldpay.payment-queries-v1.hal+json');
    expect([res.status, res.headers['content-type']]).toEqual([200, 'application/vnd.worldpay.payment-queries-v1.hal+json']);
  });

  it('answers HEAD like GET without a body, 405 with Allow: GET for other methods, and 404 below a paymentId', async () => {
    const sim = testSimulator();
    const head = await request(handlerOf(sim)).head('/paymentQueries/payments?transactionReference=a').auth('merchant', 'secret').set('Accept', QUERY_TYPE);
    expect([head.status, head.headers['content-type'], head.text ?? '']).toEqual([200, QUERY_TYPE, '']);
    for (const path of ['/paymentQueries/payments', '/paymentQueries/payments/some-id']) {
      const res = await request(handlerOf(sim)).post(path).auth('merchant', 'secret').set('Accept', QUERY_TYPE);
      expect([path, res.status, res.headers.allow, res.body.errorName]).toEqual([path, 405, 'GET', 'methodNotAllowed']);
    }
    const below = await request(handlerOf(sim)).get('/paymentQueries/payments/a/b').auth('merchant', 'secret').set('Accept', QUERY_TYPE);
    expect([below.status, below.body.errorName]).toEqual([404, 'endpointNotFound']);
  });
});

describe('payment queries in the journal and in scenarios', () => {
  it('journals both routes as the paymentQuery operation', async () => {
    const sim = testSimulator();
    const links = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }));
    await query(sim, '?transactionReference=order-1');
    await query(sim, '');
    await follow(sim, `${BASE}/paymentQueries/payments/${idOf(links)}`);
    expect(sim.requests({ operation: 'paymentQuery' }).map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', '/paymentQueries/payments', 200],
      ['GET', '/paymentQueries/payments', 400],
      ['GET', `/paymentQueries/payments/${idOf(links)}`, 200],
    ]);
  });

  it('lets a rule on operation paymentQuery match the reference asked for, or the queried payment’s', async () => {
    const sim = testSimulator({
      scenarios: [
        {
          name: 'queries-down',
          rules: [{ id: 'down', when: { operation: 'paymentQuery', transactionReference: 'order-9' }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }],
        },
      ],
    });
    const nine = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-9' }));
    const one = await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }));
    expect((await query(sim, '?transactionReference=order-9')).status).toBe(503);
    expect((await query(sim, '?transactionReference=order-1')).status).toBe(200);
    expect((await follow(sim, `${BASE}/paymentQueries/payments/${idOf(nine)}`)).status).toBe(503);
    expect((await follow(sim, `${BASE}/paymentQueries/payments/${idOf(one)}`)).status).toBe(200);
    expect(sim.requests({ operation: 'paymentQuery' }).map((e) => e.rule)).toEqual(['down', null, 'down', null]);
  });
});

describe('GET /_sim/payments?transactionReference= (the dashboard’s search)', () => {
  type Item = { tenant: string; paymentId: string; transactionReference: string; lastEvent: string };
  const listed = async (sim: Simulator, q: string): Promise<{ status: number; items: Item[]; body: Record<string, unknown> }> => {
    const res = await request(handlerOf(sim)).get(`/_sim/payments${q}`);
    return { status: res.status, items: (res.body as { payments?: Item[] }).payments ?? [], body: res.body as Record<string, unknown> };
  };

  it('lists only the payments of that reference, oldest first, of every tenant or of the one named, events caught up', async () => {
    const sim = testSimulator({ fixtures: FIXTURES, settlementDelay: 'PT1H' });
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }));
    await advance(sim, 'PT1H');
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1', merchant: { entity: 'second' } }));
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-2' }));
    await sold(sim, saleBody(plainCard(), { transactionReference: 'order-1' }), 'other', 'pw');
    const all = await listed(sim, '?transactionReference=order-1');
    expect(all.status).toBe(200);
    expect(all.items.map((p) => [p.tenant, p.transactionReference, p.lastEvent])).toEqual([
      ['merchant', 'order-1', 'settled'],
      ['merchant', 'order-1', 'sentForSettlement'],
      ['other', 'order-1', 'sentForSettlement'],
    ]);
    expect(all.body.next).toBeNull();
    expect((await listed(sim, '?tenant=other&transactionReference=order-1')).items.map((p) => p.tenant)).toEqual(['other']);
    expect((await listed(sim, '?tenant=merchant&transactionReference=order-1&limit=1')).items).toHaveLength(1);
    expect((await listed(sim, '?transactionReference=order-3')).items).toEqual([]);
    expect((await listed(sim, '?tenant=merchant')).items).toHaveLength(3);
  });

  it.each(['?transactionReference=', '?transactionReference=a&transactionReference=b'])('refuses %s as urlContainsInvalidValue', async (q) => {
    const res = await listed(testSimulator(), q);
    expect([res.status, res.body.errorName, res.body.validationErrors]).toEqual([
      400,
      'urlContainsInvalidValue',
      [{ errorName: 'fieldHasInvalidValue', message: 'transactionReference must not be empty, and given once' }],
    ]);
  });
});

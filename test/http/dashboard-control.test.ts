/**
 * Issue 15 (contract 3.4, decision 0034): the /_sim calls the dashboard reads and drives the simulator with —
 * tenants, payments (list, refund, reversal) and deleting a token — behind the admin token and scoped to a
 * tenant's own credentials like every other /_sim call.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { problemsOf, responseSchema, schemaValidator, type OpenApiDoc } from '../support/openapi-validator.js';
import { sale, saleBody } from '../support/sale.js';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const ADMIN = 's3cret';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'pa');
const BOB = basic('bob', 'pb');
const BEARER = `Bearer ${ADMIN}`;
/** The virtual instants as /_sim writes them (no milliseconds when they are zero). */
const START = '2030-01-01T00:00:00Z';

const sim2 = (adminToken?: string): Simulator => testSimulator({ users: ['alice:pa', 'bob:pb'], ...(adminToken !== undefined && { adminToken }) });

type Method = 'get' | 'put' | 'post' | 'delete';
function call(sim: Simulator, method: Method, path: string, authorization?: string, body?: unknown): request.Test {
  let t = request(handlerOf(sim))[method](path);
  if (authorization !== undefined) t = t.set('Authorization', authorization);
  if (body !== undefined) t = t.set('Content-Type', 'application/json').send(JSON.stringify(body));
  return t;
}

interface Item {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  outcome: string;
  lastEvent: string;
  amount: number;
  currency: string;
  refunded: number;
  allowedActions: string[];
  createdAt: string;
  events: { type: string; at: string; amount: number; reference?: string; refusal?: { code: string; description: string } }[];
}

async function paid(sim: Simulator, user: string, password: string, reference: string, holder = 'Sherlock Holmes'): Promise<void> {
  const body = saleBody({ type: 'card/plain', cardNumber: '4444333322221111', cardHolderName: holder, cardExpiryDate: { month: 5, year: 2035 } }, { transactionReference: reference });
  const res = await sale(sim, body, user, password);
  expect(res.status).toBe(201);
}

describe('GET /_sim/tenants', () => {
  it('lists every configured username with its clock, whether it has its own, live tokens and payments', async () => {
    const sim = sim2();
    await createToken(client(sim, 'alice', 'pa'), createBody());
    await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: '5555555555554444' }));
    await paid(sim, 'bob', 'pb', 'order-1');
    expect((await call(sim, 'put', '/_sim/clock?tenant=bob', undefined, { now: '2031-02-03T04:05:06Z', frozen: true })).status).toBe(200);
    const res = await call(sim, 'get', '/_sim/tenants');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const byName = Object.fromEntries((res.body as { tenants: { name: string }[] }).tenants.map((t) => [t.name, t]));
    expect(byName.alice).toEqual({ name: 'alice', clock: { now: START, frozen: true }, ownClock: false, tokens: 2, payments: 0 });
    expect(byName.bob).toEqual({ name: 'bob', clock: { now: '2031-02-03T04:05:06Z', frozen: true }, ownClock: true, tokens: 0, payments: 1 });
    // The default fixtures' credential is a tenant too.
    expect(Object.keys(byName).sort()).toEqual(['alice', 'bob', 'merchant']);
  });

  it('counts live tokens only: expired ones are not counted', async () => {
    const sim = sim2();
    await createToken(client(sim, 'alice', 'pa'), createBody({}, { tokenExpiryDateTime: '2030-01-02T00:00:00Z' }));
    expect((await call(sim, 'post', '/_sim/clock/advance?tenant=alice', undefined, { by: 'P2D' })).status).toBe(200);
    const res = await call(sim, 'get', '/_sim/tenants?tenant=alice');
    expect(res.body).toEqual({ tenants: [{ name: 'alice', clock: { now: '2030-01-03T00:00:00Z', frozen: true }, ownClock: true, tokens: 0, payments: 0 }] });
  });

  it("shows a tenant's Basic credentials only that tenant, and refuses another", async () => {
    const sim = sim2(ADMIN);
    const own = await call(sim, 'get', '/_sim/tenants', ALICE);
    expect(own.status).toBe(200);
    expect((own.body as { tenants: { name: string }[] }).tenants.map((t) => t.name)).toEqual(['alice']);
    const other = await call(sim, 'get', '/_sim/tenants?tenant=bob', ALICE);
    expect(other.status).toBe(403);
    expect((other.body as { errorName: string }).errorName).toBe('operationIsNotAllowed');
  });

  it('needs the admin token when one is set', async () => {
    const sim = sim2(ADMIN);
    expect((await call(sim, 'get', '/_sim/tenants')).status).toBe(401);
    expect((await call(sim, 'get', '/_sim/tenants', 'Bearer wrong')).status).toBe(401);
    expect((await call(sim, 'get', '/_sim/tenants', BEARER)).status).toBe(200);
  });

  it('refuses an unknown tenant, an unknown parameter and other methods', async () => {
    const sim = sim2();
    const unknown = await call(sim, 'get', '/_sim/tenants?tenant=nobody');
    expect([unknown.status, (unknown.body as { errorName: string }).errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const param = await call(sim, 'get', '/_sim/tenants?limit=3');
    expect([param.status, (param.body as { errorName: string }).errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const post = await call(sim, 'post', '/_sim/tenants');
    expect([post.status, post.headers.allow]).toEqual([405, 'GET']);
  });
});

describe('GET /_sim/payments', () => {
  it('keeps a refused sale\u2019s refusal code and description on its refused event, the sandbox\u2019s and a scenario\u2019s', async () => {
    const sim = sim2();
    await paid(sim, 'alice', 'pa', 'order-1', 'REFUSED51');
    sim.tenant('bob').loadScenarios({ name: 'refuse', rules: [{ when: { operation: 'sale' }, then: { outcome: { outcome: 'refused', refusalCode: '05', refusalDescription: 'DO NOT HONOUR' } } }] });
    await paid(sim, 'bob', 'pb', 'order-2');
    const items = ((await call(sim, 'get', '/_sim/payments')).body as { payments: Item[] }).payments;
    expect(items.map((p) => [p.transactionReference, p.outcome, p.events])).toEqual([
      ['order-1', 'refused', [{ type: 'refused', at: START, amount: 250, refusal: { code: '51', description: 'LIMIT EXCEEDED' } }]],
      ['order-2', 'refused', [{ type: 'refused', at: START, amount: 250, refusal: { code: '05', description: 'DO NOT HONOUR' } }]],
    ]);
  });

  it('lists payments oldest first with their events caught up to the tenant\u2019s virtual now', async () => {
    const sim = sim2();
    await paid(sim, 'alice', 'pa', 'order-1');
    await paid(sim, 'bob', 'pb', 'order-2', 'REFUSED51');
    const before = await call(sim, 'get', '/_sim/payments');
    expect(before.status).toBe(200);
    const items = (before.body as { payments: Item[]; next: null }).payments;
    expect((before.body as { next: unknown }).next).toBeNull();
    expect(items.map((p) => [p.tenant, p.transactionReference, p.outcome, p.lastEvent])).toEqual([
      ['alice', 'order-1', 'sentForSettlement', 'sentForSettlement'],
      ['bob', 'order-2', 'refused', 'refused'],
    ]);
    const [alice, bob] = items as [Item, Item];
    expect(alice).toEqual({
      tenant: 'alice',
      paymentId: alice.paymentId,
      transactionReference: 'order-1',
      outcome: 'sentForSettlement',
      lastEvent: 'sentForSettlement',
      amount: 250,
      currency: 'GBP',
      refunded: 0,
      allowedActions: ['refund', 'partialRefund', 'reversal'],
      createdAt: START,
      events: [{ type: 'sentForSettlement', at: START, amount: 250 }],
    });
    expect(bob.allowedActions).toEqual([]);
    // A day later (the default settlement delay), the sale has settled: the list catches up.
    expect((await call(sim, 'post', '/_sim/clock/advance', undefined, { by: 'P1D' })).status).toBe(200);
    const after = (await call(sim, 'get', '/_sim/payments?tenant=alice')).body as { payments: Item[] };
    expect(after.payments.map((p) => p.lastEvent)).toEqual(['settled']);
    expect(after.payments[0]!.events.map((e) => e.type)).toEqual(['sentForSettlement', 'settled']);
  });

  it('pages with limit and cursor, neither skipping nor repeating', async () => {
    const sim = sim2();
    for (let i = 0; i < 5; i++) {
      await paid(sim, i % 2 === 0 ? 'alice' : 'bob', i % 2 === 0 ? 'pa' : 'pb', `order-${i}`);
      expect((await call(sim, 'post', '/_sim/clock/advance', undefined, { by: 'PT1S' })).status).toBe(200);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call(sim, 'get', `/_sim/payments?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(res.status).toBe(200);
      const body = res.body as { payments: Item[]; next: string | null };
      seen.push(...body.payments.map((p) => p.transactionReference));
      cursor = body.next;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual(['order-0', 'order-1', 'order-2', 'order-3', 'order-4']);
    expect(pages).toBe(3);
    const bad = await call(sim, 'get', '/_sim/payments?cursor=!!');
    expect([bad.status, (bad.body as { errorName: string }).errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const big = await call(sim, 'get', '/_sim/payments?limit=10001');
    expect([big.status, (big.body as { errorName: string }).errorName]).toEqual([400, 'urlContainsInvalidValue']);
  });

  it('masks a card number in a transaction reference', async () => {
    const sim = sim2();
    await paid(sim, 'alice', 'pa', 'card 4444333322221111');
    const res = await call(sim, 'get', '/_sim/payments');
    expect(res.text).not.toContain('4444333322221111');
  });

  it("scopes a tenant's Basic credentials to its own payments", async () => {
    const sim = sim2(ADMIN);
    await paid(sim, 'alice', 'pa', 'order-a');
    await paid(sim, 'bob', 'pb', 'order-b');
    const own = await call(sim, 'get', '/_sim/payments', BOB);
    expect((own.body as { payments: Item[] }).payments.map((p) => p.transactionReference)).toEqual(['order-b']);
    expect((await call(sim, 'get', '/_sim/payments?tenant=alice', BOB)).status).toBe(403);
    expect((await call(sim, 'get', '/_sim/payments')).status).toBe(401);
    expect((await call(sim, 'get', '/_sim/payments', BEARER)).status).toBe(200);
  });
});

describe('the order of the lists the dashboard reads', () => {
  /** Ids in string order, as the lists compare them. */
  const byId = (ids: string[]): string[] => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  it('lists tokens and payments made at one frozen instant by tenant, then id, the same on every call', async () => {
    const sim = sim2();
    const cards = ['4444333322221111', '5555555555554444', '4111111111111111', '4000056655665556'];
    for (const [i, card] of cards.entries()) {
      await createToken(client(sim, 'bob', 'pb'), createBody({ cardNumber: card }));
      await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: card }));
      await paid(sim, 'bob', 'pb', `bob-${i}`);
      await paid(sim, 'alice', 'pa', `alice-${i}`);
    }
    const tokens = async (): Promise<[string, string][]> => ((await call(sim, 'get', '/_sim/tokens')).body as { tokens: { tenant: string; tokenId: string }[] }).tokens.map((t) => [t.tenant, t.tokenId]);
    const payments = async (): Promise<[string, string][]> => ((await call(sim, 'get', '/_sim/payments')).body as { payments: Item[] }).payments.map((p) => [p.tenant, p.paymentId]);
    for (const list of [await tokens(), await payments()]) {
      expect(list).toHaveLength(8);
      const ids = (tenant: string): string[] => list.filter(([t]) => t === tenant).map(([, id]) => id);
      // One instant: the tenant decides, then the id (not the order they were made in).
      expect(list.map(([t]) => t)).toEqual([...Array(4).fill('alice'), ...Array(4).fill('bob')]);
      expect(ids('alice')).toEqual(byId(ids('alice')));
      expect(ids('bob')).toEqual(byId(ids('bob')));
    }
    expect(await tokens()).toEqual(await tokens());
    expect(await payments()).toEqual(await payments());
  });

  it('lists them oldest first when the clock moves between them, whatever their ids', async () => {
    const sim = sim2();
    const made: string[] = [];
    for (const [i, card] of ['4444333322221111', '5555555555554444', '4111111111111111', '4000056655665556'].entries()) {
      await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: card, cardHolderName: `Holder ${i}` }));
      await paid(sim, 'alice', 'pa', `order-${i}`);
      made.push(String(i));
      expect((await call(sim, 'post', '/_sim/clock/advance?tenant=alice', undefined, { by: 'PT1M' })).status).toBe(200);
    }
    const tokens = ((await call(sim, 'get', '/_sim/tokens?tenant=alice')).body as { tokens: { paymentInstrument: { cardHolderName: string } }[] }).tokens;
    expect(tokens.map((t) => t.paymentInstrument.cardHolderName)).toEqual(made.map((i) => `Holder ${i}`));
    const payments = ((await call(sim, 'get', '/_sim/payments?tenant=alice')).body as { payments: Item[] }).payments;
    expect(payments.map((p) => p.transactionReference)).toEqual(made.map((i) => `order-${i}`));
  });
});

describe('POST /_sim/payments/{paymentId}/refund and /reversal', () => {
  async function onePayment(sim: Simulator, user = 'alice', password = 'pa'): Promise<Item> {
    await paid(sim, user, password, 'order-1');
    const list = (await call(sim, 'get', `/_sim/payments?tenant=${user}`, BEARER)).body as { payments: Item[] };
    return list.payments[0]!;
  }

  it('refunds in full through the domain: the answer is the payment, and a second refund is 409', async () => {
    const sim = sim2();
    const p = await onePayment(sim);
    const res = await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund?tenant=alice`);
    expect(res.status).toBe(200);
    const item = res.body as Item;
    expect([item.refunded, item.lastEvent, item.allowedActions]).toEqual([250, 'sentForRefund', []]);
    expect(item.events.map((e) => e.type)).toEqual(['sentForSettlement', 'sentForRefund']);
    const again = await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund?tenant=alice`);
    expect([again.status, (again.body as { errorName: string }).errorName]).toEqual([409, 'actionIsNotAllowed']);
    // The list shows what the action did.
    const list = (await call(sim, 'get', '/_sim/payments?tenant=alice')).body as { payments: Item[] };
    expect(list.payments[0]!.refunded).toBe(250);
  });

  it('reverses a pending sale (cancelled) and refuses a reversal after a refund', async () => {
    const sim = sim2();
    const p = await onePayment(sim);
    const res = await call(sim, 'post', `/_sim/payments/${p.paymentId}/reversal?tenant=alice`);
    expect(res.status).toBe(200);
    expect((res.body as Item).lastEvent).toBe('cancelled');
    const sim2b = sim2();
    const q = await onePayment(sim2b);
    expect((await call(sim2b, 'post', `/_sim/payments/${q.paymentId}/refund?tenant=alice`)).status).toBe(200);
    const refused = await call(sim2b, 'post', `/_sim/payments/${q.paymentId}/reversal?tenant=alice`);
    expect([refused.status, (refused.body as { errorName: string }).errorName]).toEqual([409, 'actionIsNotAllowed']);
  });

  it('answers 404 for an unknown payment or another tenant\u2019s, 400 without a tenant', async () => {
    const sim = sim2();
    const p = await onePayment(sim);
    const unknown = await call(sim, 'post', '/_sim/payments/nope/refund?tenant=alice');
    expect([unknown.status, (unknown.body as { errorName: string }).errorName]).toEqual([404, 'resourceNotFound']);
    const other = await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund?tenant=bob`);
    expect([other.status, (other.body as { errorName: string }).errorName]).toEqual([404, 'resourceNotFound']);
    const none = await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund`);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({
      errorName: 'urlContainsInvalidValue',
      message: 'POST /_sim/payments/{paymentId}/refund needs ?tenant=',
      validationErrors: [{ errorName: 'fieldIsMissing', message: 'tenant is required: the configured username the payment or token belongs to' }],
    });
    const get = await call(sim, 'get', `/_sim/payments/${p.paymentId}/refund?tenant=alice`);
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
  });

  it("takes the tenant from a tenant's Basic credentials, and refuses another tenant's", async () => {
    const sim = sim2(ADMIN);
    const p = await onePayment(sim);
    expect((await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund?tenant=alice`, BOB)).status).toBe(403);
    expect((await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund?tenant=alice`)).status).toBe(401);
    const own = await call(sim, 'post', `/_sim/payments/${p.paymentId}/refund`, ALICE);
    expect([own.status, (own.body as Item).refunded]).toEqual([200, 250]);
  });
});

describe('DELETE /_sim/tokens/{tokenId}', () => {
  interface ControlToken {
    tokenId: string;
    tenant: string;
  }
  const tokensOf = async (sim: Simulator, tenant: string): Promise<ControlToken[]> => ((await call(sim, 'get', `/_sim/tokens?tenant=${tenant}`)).body as { tokens: ControlToken[] }).tokens;

  it('deletes a live token (204), then answers 404 for it', async () => {
    const sim = sim2();
    await createToken(client(sim, 'alice', 'pa'), createBody());
    const [token] = await tokensOf(sim, 'alice');
    const res = await call(sim, 'delete', `/_sim/tokens/${token!.tokenId}?tenant=alice`);
    expect([res.status, res.text]).toEqual([204, '']);
    expect(await tokensOf(sim, 'alice')).toEqual([]);
    const again = await call(sim, 'delete', `/_sim/tokens/${token!.tokenId}?tenant=alice`);
    expect([again.status, (again.body as { errorName: string }).errorName]).toEqual([404, 'resourceNotFound']);
  });

  it('answers 404 for an expired token and for another tenant\u2019s, 400 without a tenant', async () => {
    const sim = sim2();
    await createToken(client(sim, 'alice', 'pa'), createBody({}, { tokenExpiryDateTime: '2030-01-02T00:00:00Z' }));
    const [token] = await tokensOf(sim, 'alice');
    expect((await call(sim, 'delete', `/_sim/tokens/${token!.tokenId}?tenant=bob`)).status).toBe(404);
    expect((await call(sim, 'delete', `/_sim/tokens/${token!.tokenId}`)).status).toBe(400);
    expect((await call(sim, 'post', '/_sim/clock/advance', undefined, { by: 'P2D' })).status).toBe(200);
    const expired = await call(sim, 'delete', `/_sim/tokens/${token!.tokenId}?tenant=alice`);
    expect([expired.status, (expired.body as { errorName: string }).errorName]).toEqual([404, 'resourceNotFound']);
  });

  it("is scoped to a tenant's own credentials and behind the admin token", async () => {
    const sim = sim2(ADMIN);
    await createToken(client(sim, 'alice', 'pa'), createBody());
    const tokens = ((await call(sim, 'get', '/_sim/tokens', ALICE)).body as { tokens: ControlToken[] }).tokens;
    const id = tokens[0]!.tokenId;
    expect((await call(sim, 'delete', `/_sim/tokens/${id}?tenant=alice`, BOB)).status).toBe(403);
    expect((await call(sim, 'delete', `/_sim/tokens/${id}?tenant=alice`)).status).toBe(401);
    expect((await call(sim, 'delete', `/_sim/tokens/${id}`, ALICE)).status).toBe(204);
  });
});

describe('the dashboard calls against the OpenAPI document', () => {
  it('say what their page parameters count: payments on /_sim/payments (the document said tokens)', async () => {
    const doc = (await call(sim2(), 'get', '/_sim/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string; description: string }[] } }> };
    const limit = (path: string): string | undefined => doc.paths[path]?.get.parameters.find((p) => p.name === 'limit')?.description;
    expect(limit('/_sim/payments')).toBe('At most this many payments (default 1000)');
    expect(limit('/_sim/tokens')).toBe('At most this many tokens (default 1000)');
  });

  it('answer what the served document describes (tenants, payments, a refund, a reversal, errors)', async () => {
    const sim = sim2();
    await paid(sim, 'alice', 'pa', 'order-1');
    await paid(sim, 'alice', 'pa', 'order-2');
    await paid(sim, 'bob', 'pb', 'order-3', 'REFUSED51');
    const doc = (await call(sim, 'get', '/_sim/openapi.json')).body as OpenApiDoc;
    const validatorOf = schemaValidator(doc);
    const check = async (method: Method, path: string, docPath: string, status: number): Promise<request.Response> => {
      const res = await call(sim, method, path);
      expect([path, res.status]).toEqual([path, status]);
      expect(problemsOf(validatorOf, responseSchema(doc, docPath, method, status), res.body)).toEqual([]);
      return res;
    };
    await check('get', '/_sim/tenants', '/_sim/tenants', 200);
    const list = await check('get', '/_sim/payments?limit=1', '/_sim/payments', 200);
    const first = (list.body as { payments: Item[] }).payments[0]!;
    await check('post', `/_sim/payments/${first.paymentId}/refund?tenant=alice`, '/_sim/payments/{paymentId}/refund', 200);
    await check('post', `/_sim/payments/${first.paymentId}/reversal?tenant=alice`, '/_sim/payments/{paymentId}/reversal', 409);
    await check('post', '/_sim/payments/nope/reversal?tenant=alice', '/_sim/payments/{paymentId}/reversal', 404);
    await check('delete', '/_sim/tokens/nope', '/_sim/tokens/{tokenId}', 400);
    await check('get', '/_sim/payments', '/_sim/payments', 200);
  });
});

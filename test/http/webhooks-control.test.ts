/**
 * `GET /_sim/webhooks` and `POST /_sim/webhooks/flush` (contract 3.2, decision 0030): the delivery log and
 * the flush, tenant scoping (decision 0026), the admin token, the query's refusals and `/_sim/reset`.
 * Deliveries are queued straight through the composed simulator's dispatcher, to a real receiver.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { ComposedSimulator } from '../../src/simulator/compose.js';
import { handlerOf, testSimulator } from '../support/sim.js';
import { problemsOf, responseSchema, schemaValidator, type OpenApiDoc } from '../support/openapi-validator.js';

const ADMIN = 'adm1n';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'pa');
const BOB = basic('bob', 'pb');
const MEDIA = 'application/vnd.service.events-v1.hal+json';

interface Receiver {
  url: string;
  bodies: string[];
}
const servers: Server[] = [];
const sims: ComposedSimulator[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) sim.webhookDispatcher.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver answering 200, or never answering on `/hang`. */
async function receiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/hang') return;
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

function sim(adminToken?: string): ComposedSimulator {
  const s = testSimulator({ users: ['alice:pa', 'bob:pb'], ...(adminToken !== undefined && { adminToken }) }) as ComposedSimulator;
  sims.push(s);
  return s;
}

function enqueue(s: ComposedSimulator, tenant: string, url: string, n: number): void {
  s.webhookDispatcher.enqueue({ tenant, url, orderKey: `${tenant}-pay`, eventId: `${tenant}-${n}`, type: 'sentForSettlement', body: JSON.stringify({ tenant, n }), mediaType: MEDIA });
}

type Method = 'get' | 'post' | 'delete' | 'put';
function call(s: ComposedSimulator, method: Method, path: string, authorization?: string): request.Test {
  const t = request(handlerOf(s))[method](path);
  return authorization === undefined ? t : t.set('Authorization', authorization);
}

interface Listed {
  webhooks: { seq: number; id: string; eventId: string; tenant: string; state: string; attempts: number; lastStatus: number | null }[];
  count: number;
  next: string | null;
}

describe('/_sim/webhooks', () => {
  it('flushes, then lists every delivery with its attempts, status and state', async () => {
    const r = await receiver();
    const s = sim();
    enqueue(s, 'alice', r.url, 1);
    enqueue(s, 'bob', r.url, 1);
    const flush = await call(s, 'post', '/_sim/webhooks/flush');
    expect(flush.status).toBe(200);
    expect(flush.headers['content-type']).toBe('application/json');
    expect(flush.body).toEqual({ flushed: true, pending: 0 });
    expect(r.bodies.sort()).toEqual(['{"tenant":"alice","n":1}', '{"tenant":"bob","n":1}']);
    const list = await call(s, 'get', '/_sim/webhooks');
    expect(list.status).toBe(200);
    const body = list.body as Listed;
    expect(body.count).toBe(2);
    expect(body.next).toBeNull();
    expect(body.webhooks[0]).toEqual({
      seq: 1,
      // Queued straight through the dispatcher without an id of its own: the log's seq.
      id: '1',
      eventId: 'alice-1',
      type: 'sentForSettlement',
      rule: null,
      url: r.url,
      tenant: 'alice',
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      state: 'delivered',
      enqueuedAt: expect.any(String),
      lastAttemptAt: expect.any(String),
      finishedAt: expect.any(String),
    });
  });

  it('answers what the served OpenAPI document describes, a delivered and a failed delivery among them', async () => {
    const r = await receiver();
    const s = sim();
    enqueue(s, 'alice', r.url, 1);
    enqueue(s, 'bob', 'http://127.0.0.1:1/closed', 1);
    const flush = await call(s, 'post', '/_sim/webhooks/flush?timeout=20000');
    const list = await call(s, 'get', '/_sim/webhooks');
    expect((list.body as Listed).webhooks.map((w) => w.state).sort()).toEqual(['delivered', 'failed']);
    const doc = (await call(s, 'get', '/_sim/openapi.json')).body as OpenApiDoc;
    const schema = responseSchema(doc, '/_sim/webhooks', 'get', 200);
    expect(problemsOf(schemaValidator(doc), schema, list.body)).toEqual([]);
    const [first] = (list.body as Listed).webhooks;
    expect(problemsOf(schemaValidator(doc), schema, { ...(list.body as Listed), webhooks: [{ ...first, state: 'lost' }] })).not.toEqual([]);
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/webhooks/flush', 'post', 200), flush.body)).toEqual([]);
    const resent = await call(s, 'post', `/_sim/webhooks/${first!.id}/resend`);
    expect(resent.status).toBe(202);
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/webhooks/{id}/resend', 'post', 202), resent.body)).toEqual([]);
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/webhooks/{id}/resend', 'post', 202), { ...resent.body, extra: 1 })).not.toEqual([]);
  }, 30_000);

  it('pages with limit and cursor, and filters by state', async () => {
    const r = await receiver();
    const s = sim();
    for (let n = 1; n <= 3; n++) enqueue(s, 'alice', r.url, n);
    await s.webhookDispatcher.flush();
    const first = (await call(s, 'get', '/_sim/webhooks?limit=2')).body as Listed;
    expect(first.webhooks.map((w) => w.eventId)).toEqual(['alice-1', 'alice-2']);
    expect(first).toMatchObject({ count: 3, next: '2' });
    const second = (await call(s, 'get', `/_sim/webhooks?limit=2&cursor=${first.next}`)).body as Listed;
    expect(second.webhooks.map((w) => w.eventId)).toEqual(['alice-3']);
    expect(second).toMatchObject({ count: 1, next: null });
    expect(((await call(s, 'get', '/_sim/webhooks?state=failed')).body as Listed).count).toBe(0);
    expect(((await call(s, 'get', '/_sim/webhooks?state=delivered')).body as Listed).count).toBe(3);
  });

  it("shows a tenant's Basic credentials their own deliveries only, and refuses another tenant", async () => {
    const r = await receiver();
    const s = sim(ADMIN);
    enqueue(s, 'alice', r.url, 1);
    enqueue(s, 'bob', r.url, 1);
    expect((await call(s, 'post', '/_sim/webhooks/flush', ALICE)).body).toEqual({ flushed: true, pending: 0 });
    const own = (await call(s, 'get', '/_sim/webhooks', ALICE)).body as Listed;
    expect(own.webhooks.map((w) => w.tenant)).toEqual(['alice']);
    const other = await call(s, 'get', '/_sim/webhooks?tenant=bob', ALICE);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ errorName: 'operationIsNotAllowed', message: "These credentials act on tenant 'alice' only; other tenants and everyone-wide calls need the admin token" });
    expect((await call(s, 'post', '/_sim/webhooks/flush?tenant=bob', ALICE)).status).toBe(403);
    expect((await call(s, 'get', '/_sim/webhooks', BOB)).body).toMatchObject({ count: 1 });
  });

  it('needs the admin token when one is set; with it, every tenant or one', async () => {
    const r = await receiver();
    const s = sim(ADMIN);
    enqueue(s, 'alice', r.url, 1);
    enqueue(s, 'bob', r.url, 1);
    const refused = await call(s, 'get', '/_sim/webhooks');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ errorName: 'accessDenied' });
    expect((await call(s, 'post', '/_sim/webhooks/flush')).status).toBe(401);
    expect((await call(s, 'post', '/_sim/webhooks/flush', `Bearer ${ADMIN}`)).body).toEqual({ flushed: true, pending: 0 });
    expect(((await call(s, 'get', '/_sim/webhooks', `Bearer ${ADMIN}`)).body as Listed).count).toBe(2);
    expect(((await call(s, 'get', '/_sim/webhooks?tenant=bob', `Bearer ${ADMIN}`)).body as Listed).webhooks.map((w) => w.tenant)).toEqual(['bob']);
  });

  it('answers a flush that times out with what is still pending', async () => {
    const r = await receiver();
    const s = sim();
    enqueue(s, 'alice', `${r.url}/hang`, 1);
    enqueue(s, 'alice', `${r.url}/hang`, 2);
    enqueue(s, 'bob', r.url, 1);
    const started = performance.now();
    const res = await call(s, 'post', '/_sim/webhooks/flush?timeout=100');
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(res.body).toEqual({ flushed: false, pending: 2 });
    expect((await call(s, 'post', '/_sim/webhooks/flush?tenant=bob&timeout=0')).body).toEqual({ flushed: true, pending: 0 });
    const pending = (await call(s, 'get', '/_sim/webhooks?state=pending')).body as Listed;
    expect(pending.webhooks.map((w) => [w.eventId, w.attempts, w.lastStatus])).toEqual([
      ['alice-1', 1, null],
      ['alice-2', 0, null],
    ]);
  });

  it.each([
    ['GET', '/_sim/webhooks?state=lost', 'state must be pending, held, delivered, failed or dropped, given once'],
    ['GET', '/_sim/webhooks?limit=10001', 'limit must be a whole number from 0 to 10000, given once'],
    ['GET', '/_sim/webhooks?cursor=abc', 'cursor must be the next value of an earlier answer, given once'],
    ['POST', '/_sim/webhooks/flush?timeout=60001', 'timeout must be a whole number of milliseconds from 0 to 60000, given once'],
    ['POST', '/_sim/webhooks/flush?timeout=1s', 'timeout must be a whole number of milliseconds from 0 to 60000, given once'],
  ])('refuses %s %s: 400 urlContainsInvalidValue', async (method, path, message) => {
    const res = await call(sim(), method.toLowerCase() as Method, path);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorName: 'urlContainsInvalidValue', validationErrors: [{ errorName: 'fieldHasInvalidValue', message }] });
  });

  it('refuses an unknown parameter and an unknown tenant', async () => {
    const s = sim();
    const unknown = await call(s, 'get', '/_sim/webhooks?status=failed');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ errorName: 'urlContainsInvalidValue' });
    const tenant = await call(s, 'get', '/_sim/webhooks?tenant=carol');
    expect(tenant.status).toBe(400);
    expect(tenant.body).toMatchObject({ errorName: 'urlContainsInvalidValue', validationErrors: [{ errorName: 'fieldHasInvalidValue', message: 'tenant must be a configured username, given once' }] });
  });

  it('answers 405 with Allow to other methods', async () => {
    const s = sim();
    const list = await call(s, 'delete', '/_sim/webhooks');
    expect(list.status).toBe(405);
    expect(list.headers.allow).toBe('GET');
    const flush = await call(s, 'get', '/_sim/webhooks/flush');
    expect(flush.status).toBe(405);
    expect(flush.headers.allow).toBe('POST');
  });

  it('is cleared by /_sim/reset: one tenant with ?tenant=, or all', async () => {
    const r = await receiver();
    const s = sim();
    enqueue(s, 'alice', r.url, 1);
    enqueue(s, 'bob', r.url, 1);
    enqueue(s, 'bob', `${r.url}/hang`, 2);
    await s.webhookDispatcher.flush({ tenant: 'alice' });
    expect((await call(s, 'post', '/_sim/reset?tenant=bob')).status).toBe(204);
    expect(((await call(s, 'get', '/_sim/webhooks')).body as Listed).webhooks.map((w) => w.eventId)).toEqual(['alice-1']);
    expect((await call(s, 'post', '/_sim/webhooks/flush?timeout=1000')).body).toEqual({ flushed: true, pending: 0 });
    expect((await call(s, 'post', '/_sim/reset')).status).toBe(204);
    expect((await call(s, 'get', '/_sim/webhooks')).body).toEqual({ webhooks: [], count: 0, next: null });
  });
});

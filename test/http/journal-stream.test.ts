/**
 * Issue 15 (contract 3.4, decision 0034): GET /_sim/requests/stream, the live journal as server-sent events,
 * read by a node:http client from a real server: the backlog, new entries as they are recorded, masking,
 * filters, resume (`since`, `Last-Event-ID`), the admin token (also as `?access_token=`), tenant scoping, the
 * per-client bound (an `event: gap`), and the end of every stream when the server closes.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJournal, type JournalRecord } from '../../src/control/journal.js';
import { createControlRoutes } from '../../src/http/admin/routes.js';
import type { ControlRoutesDeps } from '../../src/http/admin/context.js';
import { StreamHub, type StreamLimits } from '../../src/http/journal-stream.js';
import { startSimulator } from '../../src/simulator/server.js';
import type { Simulator } from '../../src/index.js';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const ADMIN = 's3cret';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A stream being read: its answer, the events so far, comment lines seen, and a wait for a condition. */
interface Reader {
  res: IncomingMessage;
  events: SseEvent[];
  comments: number;
  raw: () => string;
  until(check: (events: SseEvent[]) => boolean, ms?: number): Promise<void>;
  close(): void;
}

function parse(text: string): { events: SseEvent[]; comments: number } {
  const events: SseEvent[] = [];
  let comments = 0;
  for (const block of text.split('\n\n').slice(0, -1)) {
    const e: SseEvent = { event: 'message', data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments++;
      else if (line.startsWith('id: ')) e.id = line.slice(4);
      else if (line.startsWith('event: ')) e.event = line.slice(7);
      else if (line.startsWith('data: ')) e.data = line.slice(6);
    }
    if (!block.split('\n').every((l) => l.startsWith(':'))) events.push(e);
  }
  return { events, comments };
}

const open = (url: string, headers: Record<string, string> = {}): Promise<Reader> =>
  new Promise((resolve, reject) => {
    const req = get(url, { headers }, (res) => {
      let text = '';
      const waiters = new Set<() => void>();
      const reader: Reader = {
        res,
        events: [],
        comments: 0,
        raw: () => text,
        until(check, ms = 5000) {
          if (check(reader.events)) return Promise.resolve();
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`timed out; events: ${JSON.stringify(reader.events).slice(0, 500)}`)), ms);
            const waiter = (): void => {
              if (!check(reader.events)) return;
              clearTimeout(timer);
              waiters.delete(waiter);
              done();
            };
            waiters.add(waiter);
          });
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const parsed = parse(text);
        reader.events = parsed.events;
        reader.comments = parsed.comments;
        for (const w of [...waiters]) w();
      });
      res.on('error', () => undefined);
      resolve(reader);
    });
    req.on('error', reject);
  });

/** The whole answer of a request that ends (an error). */
const fetchText = (url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; body: string }> =>
  new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    }).on('error', reject);
  });

const servers: Server[] = [];
const readers: Reader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A server with the control routes over only `journal`, the live journal bounded by `limits`: its base URL and its hub. */
async function hubServer(journal: ReturnType<typeof createJournal>, limits: StreamLimits): Promise<{ base: string; hub: StreamHub }> {
  const hub = new StreamHub(journal, limits);
  const router = createControlRoutes({ journal, hub, adminToken: undefined } as unknown as ControlRoutesDeps);
  const app = express();
  app.set('query parser', 'simple');
  app.use('/_sim', router);
  return { base: await serve(app), hub };
}

/** The same server: its base URL. */
const streamServer = async (journal: ReturnType<typeof createJournal>, limits: StreamLimits): Promise<string> => (await hubServer(journal, limits)).base;

async function reader(url: string, headers?: Record<string, string>): Promise<Reader> {
  const r = await open(url, headers);
  readers.push(r);
  return r;
}

const entries = (events: SseEvent[]): { id?: string; data: Record<string, unknown> }[] =>
  events.filter((e) => e.event === 'request').map((e) => ({ ...(e.id !== undefined && { id: e.id }), data: JSON.parse(e.data) as Record<string, unknown> }));

describe('GET /_sim/requests/stream on the simulator', () => {
  const users = (adminToken?: string): Simulator => testSimulator({ users: ['alice:pa', 'bob:pb'], ...(adminToken !== undefined && { adminToken }) });

  it('sends the backlog, then each new entry as it is recorded, masked exactly as GET /_sim/requests lists it', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    await createToken(client(sim, 'alice', 'pa'), createBody());
    const r = await reader(`${base}/_sim/requests/stream`);
    expect(r.res.statusCode).toBe(200);
    expect(r.res.headers['content-type']).toBe('text/event-stream');
    expect(r.res.headers['cache-control']).toBe('no-store');
    await r.until((e) => entries(e).length === 1);
    await createToken(client(sim, 'bob', 'pb'), createBody({ cardNumber: '5555555555554444' }));
    await r.until((e) => entries(e).length === 2);
    const listed = (await fetchText(`${base}/_sim/requests`)).body;
    const journal = (JSON.parse(listed) as { requests: Record<string, unknown>[] }).requests;
    expect(entries(r.events).map((e) => e.data)).toEqual(journal);
    expect(entries(r.events).map((e) => e.id)).toEqual(journal.map((e) => String(e.seq)));
    expect(r.raw()).not.toContain('4444333322221111');
    expect(r.raw()).not.toContain('5555555555554444');
    expect(r.raw()).toContain('event: request\ndata: {');
  });

  it('sends only the last 50 entries first', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    const api = client(sim, 'alice', 'pa');
    for (let i = 0; i < 55; i++) await api.get('http://x/tokens/nothing');
    const r = await reader(`${base}/_sim/requests/stream`);
    await r.until((e) => entries(e).length === 50);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const seqs = entries(r.events).map((e) => Number(e.id));
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 6));
  });

  it('filters by tenant, operation and status, backlog and new entries alike', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    await createToken(client(sim, 'alice', 'pa'), createBody());
    await client(sim, 'alice', 'pa').get('http://x/tokens/nothing');
    await createToken(client(sim, 'bob', 'pb'), createBody());
    const r = await reader(`${base}/_sim/requests/stream?tenant=alice&operation=createToken&status=201`);
    await createToken(client(sim, 'bob', 'pb'), createBody({ cardNumber: '5555555555554444' }));
    await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: '5555555555554444' }));
    await r.until((e) => entries(e).length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(entries(r.events).map((e) => [e.data.tenant, e.data.operation, e.data.status])).toEqual([
      ['alice', 'createToken', 201],
      ['alice', 'createToken', 201],
    ]);
  });

  it('resumes after ?since= or Last-Event-ID', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    const api = client(sim, 'alice', 'pa');
    for (let i = 0; i < 4; i++) await api.get('http://x/tokens/nothing');
    const since = await reader(`${base}/_sim/requests/stream?since=2`);
    await since.until((e) => entries(e).length === 2);
    expect(entries(since.events).map((e) => e.id)).toEqual(['3', '4']);
    const header = await reader(`${base}/_sim/requests/stream`, { 'Last-Event-ID': '3' });
    await header.until((e) => entries(e).length === 1);
    expect(entries(header.events).map((e) => e.id)).toEqual(['4']);
  });

  it('refuses a bad filter or an unknown parameter with the standard error body', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    for (const query of ['status=abc', 'operation=nope', 'limit=5', 'format=har', 'tenant=nobody', 'since=-1']) {
      const res = await fetchText(`${base}/_sim/requests/stream?${query}`);
      expect([query, res.status, res.type]).toEqual([query, 400, 'application/json']);
      expect((JSON.parse(res.body) as { errorName: string }).errorName).toBe('urlContainsInvalidValue');
    }
  });

  it('needs the admin token, in the Authorization header or as ?access_token= (this route only)', async () => {
    const sim = users(ADMIN);
    const base = await serve(handlerOf(sim));
    expect((await fetchText(`${base}/_sim/requests/stream`)).status).toBe(401);
    expect((await fetchText(`${base}/_sim/requests/stream?access_token=wrong`)).status).toBe(401);
    const header = await reader(`${base}/_sim/requests/stream`, { Authorization: `Bearer ${ADMIN}` });
    expect(header.res.statusCode).toBe(200);
    const query = await reader(`${base}/_sim/requests/stream?access_token=${ADMIN}`);
    expect(query.res.statusCode).toBe(200);
    // A bad access_token with the right header is still the header's call.
    expect((await reader(`${base}/_sim/requests/stream?access_token=wrong`, { Authorization: `Bearer ${ADMIN}` })).res.statusCode).toBe(200);
    // Every other /_sim call still needs the header.
    expect((await fetchText(`${base}/_sim/requests?access_token=${ADMIN}`)).status).toBe(401);
    expect((await fetchText(`${base}/_sim/tenants?access_token=${ADMIN}`)).status).toBe(401);
  });

  it('ignores access_token without --admin-token', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    const r = await reader(`${base}/_sim/requests/stream?access_token=anything`);
    expect(r.res.statusCode).toBe(200);
  });

  it("streams a tenant's own entries only to its Basic credentials, and refuses another tenant", async () => {
    const sim = users(ADMIN);
    const base = await serve(handlerOf(sim));
    await createToken(client(sim, 'alice', 'pa'), createBody());
    await createToken(client(sim, 'bob', 'pb'), createBody());
    const r = await reader(`${base}/_sim/requests/stream`, { Authorization: basic('bob', 'pb') });
    await r.until((e) => entries(e).length === 1);
    await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: '5555555555554444' }));
    await client(sim, 'bob', 'pb').get('http://x/tokens/nothing');
    await r.until((e) => entries(e).length === 2);
    expect(entries(r.events).map((e) => e.data.tenant)).toEqual(['bob', 'bob']);
    const other = await fetchText(`${base}/_sim/requests/stream?tenant=alice`, { Authorization: basic('bob', 'pb') });
    expect([other.status, (JSON.parse(other.body) as { errorName: string }).errorName]).toEqual([403, 'operationIsNotAllowed']);
  });

  it('stops listening when the client goes away', async () => {
    const sim = users();
    const base = await serve(handlerOf(sim));
    const r = await reader(`${base}/_sim/requests/stream`);
    await createToken(client(sim, 'alice', 'pa'), createBody());
    await r.until((e) => entries(e).length === 1);
    r.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Requests go on being answered (and journaled) with nobody listening.
    await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: '5555555555554444' }));
    expect((await fetchText(`${base}/_sim/requests?limit=0`)).status).toBe(200);
  });
});

describe('the live journal at server close', () => {
  it('ends every open stream, so that an open dashboard does not hold the shutdown', async () => {
    const running = await startSimulator({ seed: 'test', port: 0, host: '127.0.0.1', frozen: true }, { writeErr: () => undefined });
    const r = await open(`${running.url}/_sim/requests/stream`);
    const ended = new Promise<void>((resolve) => r.res.on('close', resolve));
    const started = Date.now();
    await running.close();
    await ended;
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("the hub's closeAll ends every open stream and forgets it, and ends at once one opened later", async () => {
    const journal = createJournal({ perTenant: 100, total: 100, bodyChars: 1000 });
    const { base, hub } = await hubServer(journal, { backlog: 50, resume: 1000, pending: 100, flushMs: 0, budget: 1000, buffered: 256 * 1024, heartbeatMs: 60_000 });
    const first = await reader(`${base}/_sim/requests/stream`);
    const second = await reader(`${base}/_sim/requests/stream?operation=getToken`);
    const ended = Promise.all([first, second].map((r) => new Promise<void>((resolve) => r.res.on('end', resolve))));
    expect(hub.size()).toBe(2);
    hub.closeAll();
    expect(hub.size()).toBe(0);
    await ended;
    const late = await reader(`${base}/_sim/requests/stream`);
    expect(late.res.statusCode).toBe(200);
    // It may have ended before this line runs.
    if (!late.res.readableEnded) await new Promise<void>((resolve) => late.res.on('end', resolve));
    expect(late.raw()).toBe('');
    expect(hub.size()).toBe(0);
  });
});

describe('the live journal bounds each client', () => {
  const record = (n: number): JournalRecord => ({
    tenant: 'alice',
    operation: 'getToken',
    method: 'GET',
    path: `/tokens/${n}`,
    status: 404,
    correlationId: `c-${n}`,
    durationMs: 1,
    rule: null,
    virtualMs: 0,
    realMs: 0,
    body: 'x'.repeat(8000),
  });

  it('drops what a slow reader cannot take and tells it once with event: gap', async () => {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    const { base, hub } = await hubServer(journal, { backlog: 50, resume: 1000, pending: 10, flushMs: 0, budget: 100_000, buffered: 16 * 1024, heartbeatMs: 60_000 });
    const r = await reader(`${base}/_sim/requests/stream`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    r.res.pause();
    // Far more than the socket and the bound take while the client reads nothing.
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 50; i++) journal.record(record(round * 50 + i));
      await new Promise((resolve) => setImmediate(resolve));
    }
    r.res.resume();
    await r.until((e) => e.some((x) => x.event === 'gap') && entries(e).at(-1)?.id === '2000', 10_000);
    const gaps = r.events.filter((e) => e.event === 'gap').map((e) => (JSON.parse(e.data) as { skipped: number }).skipped);
    const got = entries(r.events).map((e) => Number(e.id));
    // Every entry is either sent or counted as skipped, in order, none twice.
    expect(got.length + gaps.reduce((a, b) => a + b, 0)).toBe(2000);
    expect([...got].sort((a, b) => a - b)).toEqual(got);
    expect(new Set(got).size).toBe(got.length);
    expect(gaps.length).toBeGreaterThan(0);
    expect(hub.size()).toBe(1);
    r.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hub.size()).toBe(0);
  });

  it('writes new entries together once per period, at most `pending` of them: a burst beyond is one gap', async () => {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    const base = await streamServer(journal, { backlog: 50, resume: 1000, pending: 20, flushMs: 100, budget: 100_000, buffered: 256 * 1024, heartbeatMs: 60_000 });
    const r = await reader(`${base}/_sim/requests/stream`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 500; i++) journal.record(record(i));
    await r.until((e) => entries(e).at(-1)?.id === '500');
    expect(r.events.filter((e) => e.event === 'gap').map((e) => e.data)).toEqual(['{"skipped":480}']);
    expect(entries(r.events).map((e) => Number(e.id))).toEqual(Array.from({ length: 20 }, (_, i) => 481 + i));
    // The gap comes first: what was skipped is older than what follows.
    expect(r.events[0]!.event).toBe('gap');
  });

  it('resumes with at most `resume` entries, the older ones reported first as a gap', async () => {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    const base = await streamServer(journal, { backlog: 3, resume: 5, pending: 100, flushMs: 0, budget: 100_000, buffered: 256 * 1024, heartbeatMs: 60_000 });
    for (let i = 0; i < 20; i++) journal.record(record(i));
    const resumed = await reader(`${base}/_sim/requests/stream?since=2`);
    await resumed.until((e) => entries(e).length === 5);
    expect(resumed.events.map((e) => (e.event === 'gap' ? `gap ${e.data}` : e.id))).toEqual(['gap {"skipped":13}', '16', '17', '18', '19', '20']);
    const fresh = await reader(`${base}/_sim/requests/stream`);
    await fresh.until((e) => entries(e).length === 3);
    expect(fresh.events.map((e) => e.id)).toEqual(['18', '19', '20']);
  });

  it('goes on writing when the socket took a full chunk at once (no drain event comes)', async () => {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    // Each entry (8000 characters of body) is over the buffer bound: one entry per write.
    const base = await streamServer(journal, { backlog: 50, resume: 1000, pending: 100, flushMs: 0, budget: 100_000, buffered: 1024, heartbeatMs: 60_000 });
    for (let i = 0; i < 30; i++) journal.record(record(i));
    const r = await reader(`${base}/_sim/requests/stream`);
    await r.until((e) => entries(e).length === 30);
    for (let i = 30; i < 40; i++) journal.record(record(i));
    await r.until((e) => entries(e).length === 40);
    expect(r.events.some((e) => e.event === 'gap')).toBe(false);
  });

  it('sends a comment line as a heartbeat', async () => {
    const journal = createJournal({ perTenant: 10, total: 10, bodyChars: 1e6 });
    const base = await streamServer(journal, {
      backlog: 50,
      resume: 1000,
      pending: 10,
      flushMs: 0,
      budget: 100_000,
      buffered: 16 * 1024,
      heartbeatMs: 20,
    });
    const r = await reader(`${base}/_sim/requests/stream`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.comments).toBeGreaterThan(0);
    expect(r.raw()).toContain(': heartbeat\n\n');
  });
});

describe('the live journal costs the same however many clients listen (contract 4.1)', () => {
  /** A record that counts how often its path is read: once per serialisation of its entry. */
  function countedRecord(n: number, reads: { count: number }): JournalRecord {
    const path = `/tokens/${n}`;
    const r = { tenant: 'alice', operation: 'getToken', method: 'GET', status: 404, correlationId: `c-${n}`, durationMs: 1, rule: null, virtualMs: 0, realMs: 0 } as unknown as JournalRecord;
    Object.defineProperty(r, 'path', { enumerable: true, get: () => (reads.count++, path) });
    return r;
  }

  async function readsWith(clients: number, filter = ''): Promise<{ reads: number; texts: string[] }> {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    const base = await streamServer(journal, { backlog: 0, resume: 1000, pending: 1000, flushMs: 20, budget: 100_000, buffered: 1024 * 1024, heartbeatMs: 60_000 });
    const rs = await Promise.all(Array.from({ length: clients }, () => reader(`${base}/_sim/requests/stream${filter}`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reads = { count: 0 };
    for (let i = 0; i < 300; i++) journal.record(countedRecord(i, reads));
    await Promise.all(rs.map((r) => r.until((e) => entries(e).length === 300)));
    return { reads: reads.count, texts: rs.map((r) => r.raw()) };
  }

  it('serialises and masks each entry once for 1 client and for 20, which all get the same bytes', async () => {
    const one = await readsWith(1);
    const twenty = await readsWith(20);
    expect(one.reads).toBeGreaterThan(0);
    expect(twenty.reads).toBe(one.reads);
    expect(new Set(twenty.texts).size).toBe(1);
    expect(twenty.texts[0]).toBe(one.texts[0]);
  });

  it('does so for clients with a filter too', async () => {
    const one = await readsWith(1, '?operation=getToken&status=404');
    const ten = await readsWith(10, '?operation=getToken&status=404');
    expect(ten.reads).toBe(one.reads);
    expect(new Set(ten.texts).size).toBe(1);
  });
});

describe('the live journal shares a budget between its clients (contract 4.1)', () => {
  it('hands each of 10 clients its share of a period (budget / clients), the rest as one gap, and a lone client all of it', async () => {
    const journal = createJournal({ perTenant: 100_000, total: 100_000, bodyChars: 1e9 });
    const base = await streamServer(journal, { backlog: 0, resume: 1000, pending: 40, flushMs: 100, budget: 50, buffered: 1024 * 1024, heartbeatMs: 60_000 });
    const record = (n: number): JournalRecord =>
      ({ tenant: 'alice', operation: 'getToken', method: 'GET', path: `/tokens/${n}`, status: 404, correlationId: `c-${n}`, durationMs: 1, rule: null, virtualMs: 0, realMs: 0 });
    const many = await Promise.all(Array.from({ length: 10 }, () => reader(`${base}/_sim/requests/stream`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 300; i++) journal.record(record(i));
    await Promise.all(many.map((r) => r.until((e) => entries(e).at(-1)?.id === '300')));
    for (const r of many) {
      expect(r.events.map((e) => (e.event === 'gap' ? `gap ${e.data}` : e.id))).toEqual(['gap {"skipped":295}', '296', '297', '298', '299', '300']);
    }
    for (const r of many) r.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lone = await reader(`${base}/_sim/requests/stream`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 300; i < 400; i++) journal.record(record(i));
    await lone.until((e) => entries(e).at(-1)?.id === '400');
    // One client: its share is the whole budget (50), capped by pending (40).
    expect(lone.events.filter((e) => e.event === 'gap').map((e) => e.data)).toEqual(['{"skipped":60}']);
    expect(entries(lone.events).map((e) => Number(e.id))).toEqual(Array.from({ length: 40 }, (_, i) => 361 + i));
  });
});

/**
 * The webhook queue with Redis (decision 0039): a delivery is a record in Redis from the commit that made it
 * until it is delivered, and every event is delivered once, whichever simulator made it. Webhook rules across
 * processes (decision 0056): two simulators count a rule's webhooks together (`nth`), and a delivery one of them
 * holds back (`reorder`, `delay`) is a record of the tenant that the other releases when it makes the payment's
 * next event or moves the clock.
 */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createSimulator, type ComposedSimulator as Simulator } from '../../src/simulator/compose.js';
import { sale, saleBody } from '../support/sale.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

redisDescribe(import.meta.url)('webhooks with the Redis store', () => {
  let redis: RedisServer;
  let client: Redis;
  const servers: Server[] = [];
  const sims: Simulator[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(sims.splice(0).map(async (sim) => sim.replica?.close()));
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  /** A receiver that answers 204, or holds every request until `release()`. */
  async function receiver(hold = false) {
    const received: { eventId: string; type: string; reference: string }[] = [];
    const held: (() => void)[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string; eventDetails: { type: string; transactionReference: string } };
        const answer = (): void => {
          received.push({ eventId: body.eventId, type: body.eventDetails.type, reference: body.eventDetails.transactionReference });
          res.writeHead(204).end();
        };
        if (hold) held.push(answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, release: () => held.splice(0).forEach((f) => f()) };
  }

  /** Two simulators on one Redis prefix; `rule`: one webhook rule (`operation: webhook`) both load. */
  function pair(label: string, webhookUrl: string, rule?: { when: Record<string, unknown>; then: Record<string, unknown> }): { a: Simulator; b: Simulator; prefix: string } {
    const prefix = uniquePrefix(label);
    const scenarios = rule === undefined ? [] : [{ name: label, rules: [{ id: label, when: { operation: 'webhook', ...rule.when }, then: rule.then }] }];
    const make = (): Simulator =>
      createSimulator({ seed: 'hooks', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix, webhookUrl, scenarios }, { writeErr: () => undefined });
    const a = make();
    const b = make();
    sims.push(a, b);
    return { a, b, prefix };
  }

  async function until(holds: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await holds())) {
      if (Date.now() > end) throw new Error('timed out');
      await sleep(20);
    }
  }

  it('delivers each event once, whichever simulator made it (a sale through one, its settlement through another)', async () => {
    const hook = await receiver();
    const { a, b } = pair('once', hook.url);
    const sold = await sale(a, saleBody());
    expect(sold.status).toBe(201);
    expect((await request(b.app).post('/_sim/clock/advance').send({ by: 'P1D' })).status).toBe(200);
    await until(() => hook.received.length >= 2);
    await sleep(200);
    expect(hook.received.map((r) => r.type)).toEqual(['sentForSettlement', 'settled']);
    expect(new Set(hook.received.map((r) => r.eventId)).size).toBe(2);
  });

  it('keeps a delivery in Redis, as a record of its tenant, until the receiver has it', async () => {
    const hook = await receiver(true);
    const { a, prefix } = pair('outbox', hook.url);
    expect((await sale(a, saleBody())).status).toBe(201);
    const outbox = async (): Promise<string[]> => Object.keys(await client.hgetall(`${prefix}t:merchant`)).filter((f) => f.startsWith('w:'));
    await until(async () => (await outbox()).length === 1);
    const [field] = await outbox();
    const job = JSON.parse((await client.hget(`${prefix}t:merchant`, field!)) ?? '{}') as { item: { type: string; eventId: string } };
    expect(job.item.type).toBe('sentForSettlement');
    hook.release();
    await until(() => hook.received.length === 1);
    await until(async () => (await outbox()).length === 0);
    expect(hook.received[0]!.eventId).toBe(job.item.eventId);
  });

  /** Every simulator's queue emptied, twice over a short wait (a release may come from another one's commit). */
  async function settle(...list: Simulator[]): Promise<void> {
    for (const sim of list) await sim.flushWebhooks({ timeoutMs: 5000 });
    await sleep(200);
    for (const sim of list) await sim.flushWebhooks({ timeoutMs: 5000 });
  }

  const sold = async (sim: Simulator, reference: string): Promise<void> => {
    expect((await sale(sim, saleBody(undefined, { transactionReference: reference }))).status).toBe(201);
  };

  it('counts a webhook rule across processes: the second webhook overall is dropped, whichever process made it', async () => {
    const hook = await receiver();
    const { a, b } = pair('nth', hook.url, { when: { nth: 2 }, then: { drop: true } });
    await sold(a, 'order-1');
    await sold(b, 'order-2');
    await sold(a, 'order-3');
    await settle(a, b);
    expect(hook.received.map((r) => r.reference).sort()).toEqual(['order-1', 'order-3']);
    expect(b.webhooks().map((d) => [d.state, d.rule])).toEqual([['dropped', 'nth']]);
  });

  it('keeps a reordered delivery in Redis with its hold, and the other process releases it after the payment’s next event', async () => {
    const hook = await receiver();
    const { a, b, prefix } = pair('reorder', hook.url, { when: { type: 'sentForSettlement' }, then: { reorder: true } });
    await sold(a, 'order-1');
    await settle(a);
    expect(hook.received).toEqual([]);
    const outbox = Object.entries(await client.hgetall(`${prefix}t:merchant`)).filter(([field]) => field.startsWith('w:'));
    expect(outbox.map(([, value]) => (JSON.parse(value) as { item: { type: string; hold: unknown } }).item).map((i) => [i.type, i.hold])).toEqual([['sentForSettlement', { next: true }]]);
    expect((await request(b.app).post('/_sim/clock/advance').send({ by: 'P1D' })).status).toBe(200);
    await settle(a, b);
    expect(hook.received.map((r) => r.type)).toEqual(['settled', 'sentForSettlement']);
    expect(b.webhooks().map((d) => [d.type, d.state])).toEqual([
      ['settled', 'delivered'],
      ['sentForSettlement', 'delivered'],
    ]);
  });

  it('delivers a delayed webhook once, through the process whose clock move reached it', async () => {
    const hook = await receiver();
    const { a, b } = pair('delay', hook.url, { when: { type: 'sentForSettlement' }, then: { delay: 'PT1H' } });
    await sold(a, 'order-1');
    await settle(a);
    expect((await request(a.app).post('/_sim/clock/advance').send({ by: 'PT30M' })).status).toBe(200);
    await settle(a, b);
    expect(hook.received).toEqual([]);
    expect((await request(b.app).post('/_sim/clock/advance').send({ by: 'PT30M' })).status).toBe(200);
    await settle(a, b);
    expect(hook.received.map((r) => [r.type, r.reference])).toEqual([['sentForSettlement', 'order-1']]);
  });

  it('lets the lock go when the client of a waiting flush leaves: the next control call is answered', async () => {
    const hook = await receiver(true);
    const { a } = pair('flush-gone', hook.url);
    expect((await sale(a, saleBody())).status).toBe(201);
    const server = createServer(a.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    // The flush waits for the held delivery; its client leaves after 300 ms.
    const flush = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/_sim/webhooks/flush?timeout=20000' });
    flush.on('error', () => undefined);
    flush.end();
    await sleep(300);
    flush.destroy();
    await sleep(100);
    // Without letting go, this waits for the lock until it is a 503 (or for ever, in this process).
    const moved = await request(a.app).post('/_sim/clock/advance').send({ by: 'PT1M' });
    expect(moved.status).toBe(200);
    hook.release();
  }, 30_000);
});

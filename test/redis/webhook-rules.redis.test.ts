/**
 * Webhook rules across processes on the Redis store (contract 4.4, decision 0056): two simulators sharing one
 * Redis count a rule's webhooks together (`nth`), and a delivery one of them holds back (`reorder`, `delay`) is a
 * record of the tenant that the other releases when it makes the payment's next event or moves the clock.
 */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import request from 'supertest';
import { closeSharedStore, createSimulator } from '../../src/simulator/compose.js';
import type { Simulator } from '../../src/simulator/facade.js';
import { sale, saleBody } from '../support/sale.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

redisDescribe(import.meta.url)('webhook rules with the Redis store', () => {
  let redis: RedisServer;
  let client: Redis;
  const servers: Server[] = [];
  const sims: Simulator[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((sim) => closeSharedStore(sim)));
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  async function receiver() {
    const received: { type: string; reference: string }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventDetails: { type: string; transactionReference: string } };
        received.push({ type: body.eventDetails.type, reference: body.eventDetails.transactionReference });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
  }

  /** Two simulators on one Redis prefix, with one webhook rule. */
  function pair(label: string, webhookUrl: string, when: Record<string, unknown>, then: Record<string, unknown>) {
    const prefix = uniquePrefix(label);
    const scenarios = [{ name: label, rules: [{ id: label, when: { operation: 'webhook', ...when }, then }] }];
    const make = (): Simulator =>
      createSimulator({ seed: 'rules', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix, webhookUrl, scenarios }, { writeErr: () => undefined });
    const a = make();
    const b = make();
    sims.push(a, b);
    return { a, b, prefix };
  }

  async function settle(...list: Simulator[]): Promise<void> {
    for (const sim of list) await sim.flushWebhooks({ timeoutMs: 5000 });
    await sleep(200);
    for (const sim of list) await sim.flushWebhooks({ timeoutMs: 5000 });
  }

  const sold = async (sim: Simulator, reference: string): Promise<void> => {
    expect((await sale(sim, saleBody(undefined, { transactionReference: reference }))).status).toBe(201);
  };

  it('counts a rule’s webhooks across processes: the second overall is dropped, whichever process made it', async () => {
    const hook = await receiver();
    const { a, b } = pair('nth', hook.url, { nth: 2 }, { drop: true });
    await sold(a, 'order-1');
    await sold(b, 'order-2');
    await sold(a, 'order-3');
    await settle(a, b);
    expect(hook.received.map((r) => r.reference).sort()).toEqual(['order-1', 'order-3']);
    expect(b.webhooks().map((d) => [d.state, d.rule])).toEqual([['dropped', 'nth']]);
  });

  it('keeps a reordered delivery in Redis with its hold, and the other process releases it after the payment’s next event', async () => {
    const hook = await receiver();
    const { a, b, prefix } = pair('reorder', hook.url, { type: 'sentForSettlement' }, { reorder: true });
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
    const { a, b } = pair('delay', hook.url, { type: 'sentForSettlement' }, { delay: 'PT1H' });
    await sold(a, 'order-1');
    await settle(a);
    expect((await request(a.app).post('/_sim/clock/advance').send({ by: 'PT30M' })).status).toBe(200);
    await settle(a, b);
    expect(hook.received).toEqual([]);
    expect((await request(b.app).post('/_sim/clock/advance').send({ by: 'PT30M' })).status).toBe(200);
    await settle(a, b);
    expect(hook.received).toEqual([{ type: 'sentForSettlement', reference: 'order-1' }]);
  });
});

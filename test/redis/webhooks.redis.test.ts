/**
 * The webhook queue with Redis (decision 0039): a delivery is a record in Redis from the commit that made it
 * until it is delivered, and every event is delivered once, whichever simulator made it.
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

  /** A receiver that answers 204, or holds every request until `release()`. */
  async function receiver(hold = false) {
    const received: { eventId: string; type: string }[] = [];
    const held: (() => void)[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string; eventDetails: { type: string } };
        const answer = (): void => {
          received.push({ eventId: body.eventId, type: body.eventDetails.type });
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

  function pair(label: string, webhookUrl: string): { a: Simulator; b: Simulator; prefix: string } {
    const prefix = uniquePrefix(label);
    const make = (): Simulator =>
      createSimulator({ seed: 'hooks', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix, webhookUrl }, { writeErr: () => undefined });
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
});

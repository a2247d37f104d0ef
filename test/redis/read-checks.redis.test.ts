/**
 * Decision 0040: a read-only batch checks that its memory is current with one MGET of the version stamps
 * (the tenant's, the shared records' with the store's epoch, the lock), and up to four such checks of one
 * tenant may be in flight at once. Reads stay fresh: what another simulator answered before a read was
 * sent is in that read, under load too.
 */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createSimulator, type ComposedSimulator as Simulator } from '../../src/simulator/compose.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const CARD = {
  paymentInstrument: { type: 'card/front', cardHolderName: 'Ada Lovelace', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
  merchant: { entity: 'default' },
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

redisDescribe(import.meta.url)('read-only requests with the Redis store', () => {
  let redis: RedisServer;
  let client: Redis;
  const opened: Simulator[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { lazyConnect: true });
    await client.connect();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(async (sim) => sim.replica?.close()));
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  function simulators(n: number, label: string): { sims: Simulator[]; prefix: string } {
    const prefix = uniquePrefix(label);
    const sims = Array.from({ length: n }, () =>
      createSimulator({ seed: 'checks', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix }, { writeErr: () => undefined }),
    );
    opened.push(...sims);
    return { sims, prefix };
  }
  const auth = <T extends request.Test>(t: T): T => t.auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Host', 'sim.localhost');
  const create = (sim: Simulator) => auth(request(sim.listener).post('/tokens')).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(CARD));
  const get = (sim: Simulator, href: string) => auth(request(sim.listener).get(new URL(href).pathname));
  const describeAs = (sim: Simulator, href: string, text: string) =>
    auth(request(sim.listener).put(new URL(href).pathname)).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(text));

  /** Calls of each command since the last `CONFIG RESETSTAT`, from `INFO commandstats`. */
  async function calls(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [, name, n] of (await client.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[name as string] = Number(n);
    return out;
  }

  async function token(sim: Simulator): Promise<{ self: string; description: string }> {
    const created = await create(sim);
    expect(created.status).toBe(201);
    return { self: created.body._links['tokens:token'].href as string, description: created.body._links['tokens:description'].href as string };
  }

  it('checks a GET with one MGET of the stamps, no script', async () => {
    const { sims } = simulators(1, 'mget');
    const { self } = await token(sims[0]!);
    await client.config('RESETSTAT');
    for (let i = 0; i < 20; i++) expect((await get(sims[0]!, self)).status).toBe(200);
    const counted = await calls();
    expect(counted.mget).toBe(20);
    expect(counted.evalsha ?? 0).toBe(0);
    expect(counted.eval ?? 0).toBe(0);
  });

  it('keeps up to four checks of one tenant in flight: GETs arriving while Redis is slow are not held behind the first', async () => {
    const { sims } = simulators(1, 'pipelined');
    const { self } = await token(sims[0]!);
    expect((await get(sims[0]!, self)).status).toBe(200);
    await client.config('RESETSTAT');
    process.kill(redis.pid, 'SIGSTOP');
    const answers: Promise<request.Response>[] = [];
    try {
      // Six GETs, each in a turn of its own, while Redis answers nothing (well inside the 700 ms command timeout).
      for (let i = 0; i < 6; i++) {
        answers.push(get(sims[0]!, self).then((r) => r));
        await sleep(40);
      }
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Four sent while Redis was stopped, then one for the two that waited. One at a time would have sent two.
    const mget = (await calls()).mget ?? 0;
    expect(mget).toBeGreaterThanOrEqual(4);
    expect(mget).toBeLessThanOrEqual(5);
  });

  it('reads through one simulator, under load, what another answered before the read was sent', async () => {
    const { sims } = simulators(2, 'fresh');
    const [a, b] = sims as [Simulator, Simulator];
    const { self, description } = await token(a);
    let running = true;
    const load = Array.from({ length: 8 }, async () => {
      let served = 0;
      while (running) {
        expect((await get(b, self)).status).toBe(200);
        served++;
      }
      return served;
    });
    try {
      for (let i = 1; i <= 15; i++) {
        expect((await describeAs(a, description, `v${i}`)).status).toBe(204);
        const read = await get(b, self);
        expect(read.status).toBe(200);
        expect(read.body.description).toBe(`v${i}`);
      }
    } finally {
      running = false;
    }
    expect((await Promise.all(load)).every((served) => served > 0)).toBe(true);
  });

  it('holds a GET while another process holds the store\'s lock (a control change under way)', async () => {
    const { sims, prefix } = simulators(1, 'locked');
    const { self } = await token(sims[0]!);
    expect(await client.set(`${prefix}lock`, 'another-process', 'PX', 300)).toBe('OK');
    const started = Date.now();
    expect((await get(sims[0]!, self)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('reads a store written without the stamps through the commit script, and stays fresh', async () => {
    const { sims, prefix } = simulators(2, 'unstamped');
    const [a, b] = sims as [Simulator, Simulator];
    const { self, description } = await token(a);
    expect(await client.del(`${prefix}v:merchant`, `${prefix}gv`)).toBe(2);
    await client.config('RESETSTAT');
    expect((await get(b, self)).status).toBe(200);
    const counted = await calls();
    expect((counted.evalsha ?? 0) + (counted.eval ?? 0)).toBeGreaterThanOrEqual(1);
    expect((await describeAs(a, description, 'after')).status).toBe(204);
    const read = await get(b, self);
    expect(read.status).toBe(200);
    expect(read.body.description).toBe('after');
  });
});

/**
 * Contract 4.1, "a store that lost its data says so" (decision 0041): when the Redis store finds that Redis
 * lost its state (restarted empty, or flushed), each process writes one line on stderr, `/_sim/health`
 * answers `store.state: "reset"` with when it was found until the next whole `/_sim/reset`, and
 * `token_sim_store_resets_total` counts it. Each simulator here has its own memory and connection, as
 * separate processes do.
 */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator, type ComposedSimulator as Simulator } from '../../src/simulator/compose.js';
import { luhnCard } from '../support/cards.js';
import { responseSchema, schemaValidator, problemsOf, type OpenApiDoc } from '../support/openapi-validator.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const LOST = /^token-sim: the Redis store lost its state \(Redis restarted empty or was flushed\): the simulator started over /;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Sim {
  sim: Simulator;
  /** What it wrote on stderr, one line each. */
  lines: string[];
}

redisDescribe(import.meta.url)('a Redis store that lost its state says so', () => {
  let redis: RedisServer;
  const opened: Simulator[] = [];
  beforeAll(async () => {
    // No persistence: restart() brings it back empty.
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(async (sim) => sim.replica?.close()));
  });
  afterAll(async () => {
    await redis.stop();
  });

  /** `n` simulators on one prefix, like n processes started with the same options. */
  function simulators(n: number, label: string): Sim[] {
    const prefix = uniquePrefix(label);
    return Array.from({ length: n }, () => {
      const lines: string[] = [];
      const sim = createSimulator({ seed: 'reset', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix }, { writeErr: (line) => lines.push(line) });
      opened.push(sim);
      return { sim, lines };
    });
  }

  const create = (sim: Simulator, i: number) =>
    request(sim.listener)
      .post('/tokens')
      .auth('merchant', 'secret')
      .set('Accept', TOKEN_TYPE)
      .set('Content-Type', TOKEN_TYPE)
      .send(JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Ada', cardNumber: luhnCard(i), cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } }));
  const read = (sim: Simulator, href: string) => request(sim.listener).get(new URL(href).pathname).auth('merchant', 'secret').set('Accept', TOKEN_TYPE);
  const health = async (sim: Simulator) => {
    const res = await request(sim.app).get('/_sim/health');
    return { status: res.status, body: res.body as { status: string; store: Record<string, unknown> } };
  };
  const resets = async (sim: Simulator): Promise<number> => {
    const text = (await request(sim.app).get('/_sim/metrics')).text;
    const line = /^token_sim_store_resets_total (\S+)$/m.exec(text);
    if (!line) throw new Error(`no token_sim_store_resets_total in:\n${text}`);
    return Number(line[1]);
  };
  const lostLines = (s: Sim): string[] => s.lines.filter((line) => LOST.test(line));
  /** Waits until the simulator's connection is back (health 200) after a restart of Redis. */
  async function reconnected(sim: Simulator): Promise<void> {
    const until = Date.now() + 8000;
    while ((await health(sim)).status !== 200) {
      if (Date.now() > until) throw new Error('health did not answer 200 within 8 s of the restart');
      await sleep(50);
    }
  }

  it('after a restart without its data: one stderr line per process, health says reset and when, the counter counts it; a whole reset clears health', async () => {
    const [a, b] = simulators(2, 'restart') as [Sim, Sim];
    const created = await create(a.sim, 1);
    expect(created.status).toBe(201);
    const href = (created.body._links as Record<string, { href: string }>)['tokens:token']!.href;
    expect((await read(b.sim, href)).status).toBe(200);
    for (const s of [a, b]) {
      expect(await health(s.sim)).toEqual({ status: 200, body: { status: 'ok', store: { kind: 'redis', up: true } } });
      expect(await resets(s.sim)).toBe(0);
      expect(s.lines).toEqual([]);
    }

    const before = new Date();
    await redis.restart();
    for (const s of [a, b]) await reconnected(s.sim);
    // Health alone does not look at the state: each process finds the loss on its next use of the store.
    // Several at once (API reads, a create, a control read), so that more than one of its units meets it.
    for (const s of [a, b]) {
      const answers = await Promise.all([
        read(s.sim, href),
        read(s.sim, href),
        create(s.sim, 2),
        request(s.sim.app).get('/_sim/tokens'),
        request(s.sim.app).get('/_sim/clock'),
      ]);
      // The store started over: the token made before is gone.
      expect(answers.slice(0, 2).map((r) => r.status)).toEqual([404, 404]);
      expect(answers.slice(2).map((r) => r.status)).toEqual([expect.any(Number), 200, 200]);
    }
    // More use finds nothing new.
    for (const s of [a, b]) expect((await read(s.sim, href)).status).toBe(404);
    const after = new Date();

    const doc = (await request(a.sim.app).get('/_sim/openapi.json')).body as OpenApiDoc;
    const validatorOf = schemaValidator(doc);
    for (const s of [a, b]) {
      expect(lostLines(s)).toHaveLength(1);
      expect(s.lines).toEqual(lostLines(s));
      expect(s.lines[0]).toMatch(/tokens and payments made before are gone$/);
      const { status, body } = await health(s.sim);
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'ok', store: { kind: 'redis', up: true, state: 'reset', at: expect.any(String) } });
      // When it was found, by the wall clock (the simulators' clocks are frozen in 2030).
      const at = body.store.at as string;
      expect(new Date(at).toISOString()).toBe(at);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before.getTime());
      expect(Date.parse(at)).toBeLessThanOrEqual(after.getTime());
      expect(problemsOf(validatorOf, responseSchema(doc, '/_sim/health', 'get', 200), body)).toEqual([]);
      expect(await resets(s.sim)).toBe(1);
    }

    // One tenant's reset is not the answer to a lost store: health keeps saying so.
    expect((await request(a.sim.app).post('/_sim/reset?tenant=merchant')).status).toBe(204);
    expect((await health(a.sim)).body.store.state).toBe('reset');
    // A whole reset is: the process that ran it shows the normal state again. Health is each process's own:
    // the other one keeps its report until a reset reaches it.
    expect((await request(a.sim.app).post('/_sim/reset')).status).toBe(204);
    expect(await health(a.sim)).toEqual({ status: 200, body: { status: 'ok', store: { kind: 'redis', up: true } } });
    expect((await health(b.sim)).body.store).toEqual({ kind: 'redis', up: true, state: 'reset', at: expect.any(String) });
    expect((await request(b.sim.app).post('/_sim/reset')).status).toBe(204);
    expect(await health(b.sim)).toEqual({ status: 200, body: { status: 'ok', store: { kind: 'redis', up: true } } });
    // The counter counts from the start, resets or not; no line more.
    for (const s of [a, b]) {
      expect(await resets(s.sim)).toBe(1);
      expect(lostLines(s)).toHaveLength(1);
    }
  }, 60_000);

  it('after FLUSHALL, and again after a second one: a line, a count and a new instant for each loss', async () => {
    const [a] = simulators(1, 'flush') as [Sim];
    expect((await create(a.sim, 1)).status).toBe(201);
    await redis.flush();
    expect((await create(a.sim, 2)).status).toBe(201);
    expect(lostLines(a)).toHaveLength(1);
    expect(await resets(a.sim)).toBe(1);
    const first = (await health(a.sim)).body.store.at as string;
    expect(typeof first).toBe('string');

    await sleep(5);
    await redis.flush();
    expect((await request(a.sim.app).get('/_sim/tokens')).status).toBe(200);
    expect(lostLines(a)).toHaveLength(2);
    expect(await resets(a.sim)).toBe(2);
    const { body } = await health(a.sim);
    expect(body.store).toEqual({ kind: 'redis', up: true, state: 'reset', at: expect.any(String) });
    expect(Date.parse(body.store.at as string)).toBeGreaterThan(Date.parse(first));
  }, 30_000);
});

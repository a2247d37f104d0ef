/**
 * Contract 3.5: with Redis unreachable, API calls answer 503 serviceUnavailable within 2 s, health says so,
 * and service resumes by itself when Redis returns; no crash, no hang, and nothing half-written.
 */
import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/index.js';
import { luhnCard } from '../support/cards.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;

interface Answer {
  status: number;
  ms: number;
  body: Record<string, unknown>;
}

async function send(url: string, method: string, body?: unknown): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers: { Authorization: AUTH, Accept: TOKEN_TYPE, ...(body !== undefined && { 'Content-Type': TOKEN_TYPE }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const create = (sim: RunningSimulator, i: number): Promise<Answer> =>
  send(`${sim.url}/tokens`, 'POST', {
    paymentInstrument: { type: 'card/front', cardHolderName: `Holder ${i}`, cardNumber: luhnCard(i), cardExpiryDate: { month: 5, year: 2035 } },
    merchant: { entity: 'default' },
  });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

redisDescribe(import.meta.url)('a Redis outage', () => {
  let redis: RedisServer;
  let dir: string;
  const sims: RunningSimulator[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-sim-outage-'));
    redis = await startRedis({ persistIn: dir });
  });
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((sim) => sim.close()));
  });
  afterAll(async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function two(label: string): Promise<[RunningSimulator, RunningSimulator]> {
    const prefix = uniquePrefix(label);
    const options = { port: 0, seed: 'outage', now: '2030-01-01T00:00:00Z', frozen: true, store: redis.url, storePrefix: prefix };
    const a = await startSimulator(options, { writeErr: () => undefined });
    const b = await startSimulator(options, { writeErr: () => undefined });
    sims.push(a, b);
    return [a, b];
  }

  it('answers 503 within 2 s while Redis is stopped, says so on health, and recovers by itself with every answered token intact', async () => {
    const [a, b] = await two('restart');
    const answers: { i: number; answer: Answer }[] = [];
    let running = true;
    let next = 0;
    // Traffic through both simulators, before, during and after the restart.
    const traffic = [a, b].map(async (sim) => {
      while (running) {
        const i = next++;
        answers.push({ i, answer: await create(sim, i) });
      }
    });
    await sleep(300);
    await redis.stop();
    await sleep(1500);
    const health = await fetch(`${a.url}/_sim/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'unavailable', store: { kind: 'redis', up: false } });
    await redis.restart();
    // Recovery by itself: within a few seconds every call is answered again.
    const until = Date.now() + 8000;
    while (Date.now() < until && (await fetch(`${b.url}/_sim/health`)).status !== 200) await sleep(50);
    await sleep(500);
    running = false;
    await Promise.all(traffic);

    const statuses = answers.map(({ answer }) => answer.status);
    const outage = answers.filter(({ answer }) => answer.status === 503);
    expect(outage.length).toBeGreaterThan(0);
    for (const { answer } of outage) {
      expect(answer.body.errorName).toBe('serviceUnavailable');
      expect(answer.ms).toBeLessThan(2000);
    }
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    // Service resumed: the last answers are all 201 again.
    expect(statuses.slice(-5)).toEqual([201, 201, 201, 201, 201]);

    // Nothing lost, nothing half-written: every token answered 201 reads the same through both simulators.
    const created = answers.filter(({ answer }) => answer.status === 201);
    for (const { i, answer } of created) {
      const href = (answer.body._links as Record<string, { href: string }>)['tokens:token']!.href;
      for (const sim of [a, b]) {
        const read = await send(`${sim.url}${new URL(href).pathname}`, 'GET');
        expect(read.status).toBe(200);
        expect((read.body.paymentInstrument as Record<string, unknown>).cardHolderName).toBe(`Holder ${i}`);
      }
    }
    // Both see one and the same state.
    const views = await Promise.all([a, b].map(async (sim) => (await (await fetch(`${sim.url}/_sim/tokens`)).json()) as { tokens: { tokenId: string }[] }));
    const ids = views.map((v) => v.tokens.map((t) => t.tokenId).sort());
    expect(ids[0]).toEqual(ids[1]);
    expect(ids[0]!.length).toBeGreaterThanOrEqual(created.length);
  }, 60_000);

  it('answers 503 within 2 s when Redis hangs (stopped, not closed), and recovers when it wakes', async () => {
    const [a] = await two('hang');
    expect((await create(a, 1)).status).toBe(201);
    process.kill(redis.pid, 'SIGSTOP');
    try {
      const answer = await create(a, 2);
      expect(answer.status).toBe(503);
      expect(answer.body.errorName).toBe('serviceUnavailable');
      expect(answer.ms).toBeLessThan(2000);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    const until = Date.now() + 5000;
    let after = await create(a, 3);
    while (after.status !== 201 && Date.now() < until) {
      await sleep(100);
      after = await create(a, 3);
    }
    expect(after.status).toBe(201);
  }, 30_000);
});

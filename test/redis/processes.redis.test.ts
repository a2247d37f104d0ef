/**
 * Contract 3.5 across real processes: two token-sim processes and a third with `--workers 2` (four processes
 * in all) on one redis-server, one key prefix, the same seed, behave as one simulator. Runs bin/token-sim.js
 * on the built dist/, like the other process tests.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { listening, run, type Run } from '../support/cli.js';
import { luhnCard } from '../support/cards.js';
import { redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: AUTH, Accept: TOKEN_TYPE, ...(body !== undefined && { 'Content-Type': path.startsWith('/_sim') ? 'application/json' : TOKEN_TYPE }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  paymentInstrument: { type: 'card/front', cardHolderName: 'Grace Hopper', cardNumber: number, cardExpiryDate: { month: 5, year: 2035 } },
  merchant: { entity: 'default' },
  ...extra,
});

redisDescribe(import.meta.url)('token-sim processes on one Redis', () => {
  let redis: RedisServer;
  const runs: Run[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const common = ['--port', '0', '--log', 'silent', '--seed', 'processes', '--now', '2030-01-01T00:00:00Z', '--frozen', '--store', redis.url, '--store-prefix', uniquePrefix('processes')];
    runs.push(run(common), run(common), run([...common, '--workers', '2']));
    urls = await Promise.all(runs.map((r) => listening(r)));
  }, 30_000);

  afterAll(async () => {
    for (const r of runs) r.child.kill('SIGTERM');
    await Promise.all(runs.map((r) => r.exited));
    await redis.stop();
  });

  /** Round robin over the three listeners (the third spreads over its two workers). */
  const at = (i: number): string => urls[i % urls.length] as string;

  it('answers one 201 to 200 concurrent creates of one card spread over the processes', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(at(i), 'POST', '/tokens', card(luhnCard(500)))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(199);
    expect(new Set(answers.map((a) => a.body.tokenId)).size).toBe(1);
  });

  it('answers one 201 to 200 concurrent sales with one transactionReference spread over the processes, and makes one payment (contract 4.4)', async () => {
    const SALE = 'application/vnd.service.payments-v5+json';
    const body = {
      transactionReference: 'one-reference',
      merchant: { entity: 'default' },
      instruction: { narrative: { line1: 'x' }, value: { currency: 'GBP', amount: 100 }, paymentInstrument: { type: 'card/plain', cardHolderName: 'Grace Hopper', cardNumber: luhnCard(600), cardExpiryDate: { month: 5, year: 2035 } } },
    };
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await fetch(`${at(i)}/payments/sales/migrateCardOnFile`, { method: 'POST', headers: { Authorization: AUTH, Accept: SALE, 'Content-Type': SALE }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.errorName === 'transactionHasAlreadyBeenProcessed')).toHaveLength(199);
    const listed = (await call(at(1), 'GET', '/_sim/payments')).body.payments as { transactionReference: string }[];
    expect(listed.filter((p) => p.transactionReference === 'one-reference')).toHaveLength(1);
  });

  it('shares tokens and the clock: created in one, read in another, expired everywhere after an advance through a third', async () => {
    const created = await call(at(0), 'POST', '/tokens', card(luhnCard(501)));
    expect(created.status).toBe(201);
    const path = new URL((created.body._links as Record<string, { href: string }>)['tokens:token']!.href).pathname;
    expect((await call(at(1), 'GET', path)).status).toBe(200);
    expect((await call(at(2), 'POST', '/_sim/clock/advance', { by: 'P8D' })).status).toBe(200);
    for (const url of urls) expect((await call(url, 'GET', '/_sim/clock')).body.now).toBe('2030-01-09T00:00:00Z');
    expect((await call(at(1), 'GET', path)).status).toBe(404);
  });

  it('refuses the 17th card of a namespace, whichever process takes it', async () => {
    const answers = await Promise.all(Array.from({ length: 17 }, (_, i) => call(at(i), 'POST', '/tokens', card(luhnCard(600 + i), { namespace: 'across' }))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(16);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.body.errorName).toBe('tooManyTokensForNamespace');
  });

  it('counts scenario rules across processes: every 3rd create fails, counted over all of them', async () => {
    const scenario = { name: 'every-third', rules: [{ when: { operation: 'createToken', every: 3 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };
    expect((await call(at(0), 'PUT', '/_sim/scenarios', scenario)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await call(at(i), 'POST', '/tokens', card(luhnCard(700 + i)))).status);
    expect(statuses).toEqual([201, 201, 503, 201, 201, 503, 201, 201, 503]);
    expect((await call(at(1), 'DELETE', '/_sim/scenarios')).status).toBe(204);
  });
});

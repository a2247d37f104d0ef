/**
 * Contract 3.5: simulators pointed at one Redis (one prefix) behave as one simulator. Each simulator here has
 * its own memory and its own connection, as separate processes do (test/redis/processes.redis.test.ts runs
 * real processes too).
 */
import { expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/simulator/facade.js';
import { luhnCard } from '../support/cards.js';
import { redisDescribe, sharedRedisSimulators } from '../support/redis.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';

const card = (number: string, overrides: Record<string, unknown> = {}) => ({
  paymentInstrument: { type: 'card/front', cardHolderName: 'Ada Lovelace', cardNumber: number, cardExpiryDate: { month: 5, year: 2035 } },
  merchant: { entity: 'default' },
  ...overrides,
});

redisDescribe(import.meta.url)('one state in Redis, shared by several simulators', () => {
  const { simulators } = sharedRedisSimulators();

  const api = (sim: Simulator) => {
    const agent = request(sim.listener);
    const auth = <T extends request.Test>(t: T): T => t.auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Host', 'sim.localhost');
    return {
      create: (body: unknown) => auth(agent.post('/tokens')).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(body)),
      get: (href: string) => auth(agent.get(new URL(href).pathname)),
      put: (href: string, body: unknown) => auth(agent.put(new URL(href).pathname)).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(body)),
      delete: (href: string) => auth(agent.delete(new URL(href).pathname)),
    };
  };
  const control = (sim: Simulator) => request(sim.app);

  it('reads, updates and deletes through one simulator a token created through another', async () => {
    const [a, b, c] = simulators(3, 'crud');
    const created = await api(a!).create(card('4444333322221111'));
    expect(created.status).toBe(201);
    const self = created.body._links['tokens:token'].href as string;
    const read = await api(b!).get(self);
    expect(read.status).toBe(200);
    expect(read.body.tokenId).toBe(created.body.tokenId);
    const described = await api(c!).put(created.body._links['tokens:description'].href, 'shared');
    expect(described.status).toBe(204);
    expect((await api(a!).get(self)).body.description).toBe('shared');
    expect((await api(b!).delete(self)).status).toBe(204);
    expect((await api(c!).get(self)).status).toBe(404);
    expect((await api(a!).get(self)).status).toBe(404);
  });

  it('reads through one simulator the refs another made, without --seed too (the key prefix seeds their keys)', async () => {
    const [a, b] = simulators(2, 'unseeded', { seed: undefined });
    const created = await api(a!).create(card('4444333322221111'));
    expect(created.status).toBe(201);
    const read = await api(b!).get(created.body._links['tokens:token'].href as string);
    expect(read.status).toBe(200);
    expect(read.body.tokenId).toBe(created.body.tokenId);
  });

  it('moves every simulator\'s clock: a token expires everywhere after an advance through one', async () => {
    const [a, b] = simulators(2, 'clock');
    const created = await api(a!).create(card('4444333322221111'));
    const self = created.body._links['tokens:token'].href as string;
    expect((await control(b!).post('/_sim/clock/advance').send({ by: 'P8D' })).status).toBe(200);
    expect((await control(a!).get('/_sim/clock')).body.now).toBe('2030-01-09T00:00:00Z');
    expect((await api(a!).get(self)).status).toBe(404);
  });

  it('answers exactly one 201 to 200 concurrent creates of one card spread over simulators', async () => {
    const sims = simulators(4, 'race');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => api(sims[i % sims.length]!).create(card('4444333322221111'))));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(199);
    expect(new Set(answers.map((r) => r.body.tokenId)).size).toBe(1);
  });

  it('refuses the 17th card of a namespace whichever simulator takes it', async () => {
    const sims = simulators(3, 'namespace');
    const numbers = Array.from({ length: 17 }, (_, i) => luhnCard(i));
    const answers = await Promise.all(numbers.map((n, i) => api(sims[i % 3]!).create(card(n, { namespace: 'shared-ns' }))));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(16);
    expect(statuses.filter((s) => s === 403)).toHaveLength(1);
    const refused = answers.find((r) => r.status === 403);
    expect(refused?.body.errorName).toBe('tooManyTokensForNamespace');
  });

  it('counts scenario rules across simulators: nth fires once, on the nth request overall', async () => {
    const sims = simulators(3, 'nth');
    const scenario = { name: 'third', rules: [{ when: { operation: 'createToken', nth: 3 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };
    expect((await control(sims[0]!).put('/_sim/scenarios').send(scenario)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api(sims[i % 3]!).create(card(luhnCard(100 + i)))).status);
    expect(statuses).toEqual([201, 201, 503, 201, 201, 201]);
  });

  it('lists in every simulator the requests any of them answered (the journal is shared, card numbers masked)', async () => {
    const [a, b] = simulators(2, 'journal');
    expect((await api(a!).create(card('4444333322221111'))).status).toBe(201);
    expect((await api(b!).create(card(luhnCard(7)))).status).toBe(201);
    for (const sim of [a!, b!]) {
      const listed = await control(sim).get('/_sim/requests?tenant=merchant');
      expect(listed.status).toBe(200);
      const requests = listed.body.requests as { operation: string; status: number; requestBody?: unknown }[];
      expect(requests.map((r) => [r.operation, r.status])).toEqual([
        ['createToken', 201],
        ['createToken', 201],
      ]);
      expect(JSON.stringify(listed.body)).not.toContain('4444333322221111');
    }
    expect((await control(b!).delete('/_sim/requests?tenant=merchant')).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await control(a!).get('/_sim/requests?tenant=merchant')).body.requests).toHaveLength(0);
  });
});

/** Tenants' own scenario sets over /_sim (contract 3.1): scoped, evaluated first, kept by reset, carried by snapshots. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { client, createBody, handlerOf, testSimulator } from '../support/sim.js';

const USERS = { users: ['alice:alice-pw', 'bob:bob-pw'] };
const outage = (name: string, status = 503, errorName = 'serviceUnavailable') => ({
  name,
  rules: [{ id: name, when: { operation: 'createToken' }, then: { error: { status, errorName } } }],
});
const alice = (sim: ReturnType<typeof testSimulator>) => client(sim, 'alice', 'alice-pw');
const bob = (sim: ReturnType<typeof testSimulator>) => client(sim, 'bob', 'bob-pw');

describe('PUT/GET/DELETE /_sim/scenarios?tenant=', () => {
  it("replaces, shows and clears one tenant's own set; other tenants and the global set are untouched", async () => {
    const sim = testSimulator(USERS);
    const http = request(handlerOf(sim));
    const put = await http.put('/_sim/scenarios?tenant=alice').set('Content-Type', 'application/yaml').send('name: alice-down\nrules:\n  - when: {operation: createToken}\n    then: {error: {status: 503, errorName: serviceUnavailable}}\n');
    expect(put.status).toBe(200);
    expect(put.body.scenarios.map((s: { name: string }) => s.name)).toEqual(['alice-down']);
    expect((await http.get('/_sim/scenarios?tenant=alice')).body.scenarios).toHaveLength(1);
    expect((await http.get('/_sim/scenarios?tenant=bob')).body.scenarios).toEqual([]);
    expect((await http.get('/_sim/scenarios')).body.scenarios).toEqual([]);
    expect((await alice(sim).create(createBody())).status).toBe(503);
    expect((await bob(sim).create(createBody())).status).toBe(201);
    expect((await client(sim).create(createBody())).status).toBe(201);

    expect((await http.delete('/_sim/scenarios?tenant=alice')).status).toBe(204);
    expect((await http.get('/_sim/scenarios?tenant=alice')).body.scenarios).toEqual([]);
    expect((await alice(sim).create(createBody())).status).toBe(201);
  });

  it('a second PUT for one tenant replaces only that set, and DELETE without a tenant clears only the global set', async () => {
    const sim = testSimulator(USERS);
    const http = request(handlerOf(sim));
    await http.put('/_sim/scenarios?tenant=alice').send(outage('a1'));
    await http.put('/_sim/scenarios?tenant=bob').send(outage('b1'));
    await http.put('/_sim/scenarios').send(outage('global', 500, 'internalErrorOccurred'));
    await http.put('/_sim/scenarios?tenant=alice').send(outage('a2', 429, 'tooManyRequests'));
    expect((await http.get('/_sim/scenarios?tenant=alice')).body.scenarios.map((s: { name: string }) => s.name)).toEqual(['a2']);
    expect((await http.get('/_sim/scenarios?tenant=bob')).body.scenarios.map((s: { name: string }) => s.name)).toEqual(['b1']);
    expect((await http.delete('/_sim/scenarios')).status).toBe(204);
    expect((await http.get('/_sim/scenarios')).body.scenarios).toEqual([]);
    expect((await http.get('/_sim/scenarios?tenant=bob')).body.scenarios).toHaveLength(1);
    expect((await client(sim).create(createBody())).status).toBe(201);
    expect((await alice(sim).create(createBody())).status).toBe(429);
  });

  it("evaluates the tenant's set first, then the global set; the first rule that applies wins", async () => {
    const sim = testSimulator(USERS);
    const http = request(handlerOf(sim));
    await http.put('/_sim/scenarios').send(outage('global', 500, 'internalErrorOccurred'));
    // bob's own rule applies to sales only: his creates fall through to the global rule.
    await http.put('/_sim/scenarios?tenant=bob').send({ name: 'bob-sales', rules: [{ when: { operation: 'sale' }, then: { outcome: { outcome: 'refused' } } }] });
    await http.put('/_sim/scenarios?tenant=alice').send(outage('alice-own'));
    const a = await alice(sim).create(createBody());
    const b = await bob(sim).create(createBody());
    expect([a.status, a.body.errorName]).toEqual([503, 'serviceUnavailable']);
    expect([b.status, b.body.errorName]).toEqual([500, 'internalErrorOccurred']);
    expect(sim.requests().map((e) => [e.tenant, e.rule])).toEqual([
      ['alice', 'alice-own'],
      ['bob', 'global'],
    ]);
  });

  it('refuses a tenant that is not a configured username', async () => {
    const res = await request(handlerOf(testSimulator(USERS))).put('/_sim/scenarios?tenant=mallory').send(outage('x'));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('urlContainsInvalidValue');
  });

  it("preloads a tenant set's tokens for that tenant, refuses another tenant's, and puts them back after a reset", async () => {
    const sim = testSimulator(USERS);
    const http = request(handlerOf(sim));
    const token = { paymentInstrument: createBody().paymentInstrument, merchant: { entity: 'default' } };
    const foreign = await http.put('/_sim/scenarios?tenant=alice').send({ name: 'p', tokens: [{ ...token, username: 'bob' }] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.validationErrors.map((v: { jsonPath: string }) => v.jsonPath)).toEqual(['$.tokens[0].username']);
    expect((await http.put('/_sim/scenarios?tenant=alice').send({ name: 'p', tokens: [token] })).status).toBe(200);
    expect(sim.tenant('alice').tokens()).toHaveLength(1);
    expect(sim.tenant('bob').tokens()).toHaveLength(0);
    sim.reset('alice');
    expect(sim.tenant('alice').tokens()).toHaveLength(1);
    sim.reset();
    expect(sim.tokens().map((t) => t.tenant)).toEqual(['alice']);
  });

  it("a tenant set's profile applies to that tenant's new tokens only", async () => {
    const sim = testSimulator({ ...USERS, frozen: true, now: '2030-01-01T00:00:00Z' });
    sim.tenant('alice').loadScenarios({ name: 'live', profile: 'live' });
    const own = (await alice(sim).create(createBody())).body as { tokenExpiryDateTime: string };
    const other = (await bob(sim).create(createBody())).body as { tokenExpiryDateTime: string };
    expect(own.tokenExpiryDateTime).toBe('2034-01-01T00:00:00Z');
    expect(other.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
  });

  it("POST /_sim/reset?tenant= keeps the tenant's set and zeroes its counts; the other tenant's counts stay", async () => {
    const sim = testSimulator(USERS);
    const http = request(handlerOf(sim));
    const secondFails = { name: 'second', rules: [{ id: 'second', when: { operation: 'createToken', nth: 2 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };
    await http.put('/_sim/scenarios?tenant=alice').send(secondFails);
    await http.put('/_sim/scenarios?tenant=bob').send(secondFails);
    await alice(sim).create(createBody());
    await bob(sim).create(createBody());
    expect((await http.post('/_sim/reset?tenant=alice')).status).toBe(204);
    expect((await http.get('/_sim/scenarios?tenant=alice')).body.scenarios).toHaveLength(1);
    expect((await alice(sim).create(createBody())).status).toBe(201); // its first again
    expect((await alice(sim).create(createBody())).status).toBe(503);
    expect((await bob(sim).create(createBody())).status).toBe(503); // bob's second
  });

  it("state snapshots carry tenants' sets and their counts, card numbers sealed", async () => {
    const sim = testSimulator({ ...USERS, seed: 'sets' });
    const http = request(handlerOf(sim));
    const byCard = { name: 'by-card', rules: [{ id: 'third', when: { operation: 'createToken', cardNumber: '4444333322221111', nth: 2 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };
    await http.put('/_sim/scenarios?tenant=alice').send(byCard);
    await alice(sim).create(createBody());
    const exported = await http.get('/_sim/state');
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).not.toContain('4444333322221111');
    expect(Object.keys(exported.body.scenarios)).toEqual(['alice']);
    expect(exported.body.counters.tenantScenarios).toEqual({ alice: { third: { matches: 1, applications: 0 } } });

    const copy = testSimulator({ ...USERS, seed: 'sets' });
    expect((await request(handlerOf(copy)).put('/_sim/state').send(exported.body)).status).toBe(204);
    expect(copy.tenant('alice').scenarios()[0]?.rules?.[0]?.when?.cardNumber).toBe('4444333322221111');
    expect((await alice(copy).create(createBody())).status).toBe(503); // the second match, counted across the snapshot
    expect(copy.tenant('bob').scenarios()).toEqual([]);

    const otherSeed = testSimulator({ ...USERS, seed: 'other' });
    const refused = await request(handlerOf(otherSeed)).put('/_sim/state').send({ ...exported.body, tokens: [] });
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors[0].jsonPath).toBe('$.scenarios.alice[0].rules[0].when.sealedCardNumber');
  });

  it('refuses a snapshot whose sets name a tenant that is not configured, changing nothing', async () => {
    const sim = testSimulator(USERS);
    const state = sim.exportState();
    const res = await request(handlerOf(sim)).put('/_sim/state').send({ ...state, scenarios: { mallory: [outage('m')] } });
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0].jsonPath).toBe('$.scenarios.mallory');
  });
});

/**
 * Issue 13, defect 9: the control plane was all-or-nothing. A tenant's Basic credentials now open its own
 * control plane (and only it); everyone-wide calls need the admin token when there is one; imports write
 * only configured tenants, and a tenant-scoped import only that tenant.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const ADMIN = 's3cret';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'pa');
const BOB = basic('bob', 'pb');
const BEARER = `Bearer ${ADMIN}`;
const sim2 = (adminToken?: string): Simulator => testSimulator({ users: ['alice:pa', 'bob:pb'], ...(adminToken !== undefined && { adminToken }) });

type Method = 'get' | 'put' | 'post' | 'delete';
function call(sim: Simulator, method: Method, path: string, authorization?: string, body?: unknown): request.Test {
  let t = request(handlerOf(sim))[method](path);
  if (authorization !== undefined) t = t.set('Authorization', authorization);
  if (body !== undefined) t = t.set('Content-Type', 'application/json').send(JSON.stringify(body));
  return t;
}

const aliceCard = createBody({ cardNumber: '4444333322221111' });
const bobCard = createBody({ cardNumber: '5555555555554444' });

async function withTokens(sim: Simulator): Promise<{ a: Record<string, string>; b: Record<string, string> }> {
  const a = await createToken(client(sim, 'alice', 'pa'), aliceCard);
  const b = await createToken(client(sim, 'bob', 'pb'), bobCard);
  return { a, b };
}

interface StateToken {
  tenant: string;
  tokenId: string;
}
interface State {
  clock: { now: string; frozen: boolean };
  tenantClocks: Record<string, { now: string; frozen: boolean }>;
  counters: { ids: Record<string, number> };
  tokens: StateToken[];
}

describe.each([
  ['without --admin-token', undefined],
  ['with --admin-token', ADMIN],
])("a tenant's own control plane (%s)", (_name, adminToken) => {
  it("lets bob neither reset nor export alice's tokens (the issue's reproduction)", async () => {
    const sim = sim2(adminToken);
    await withTokens(sim);
    const reset = await call(sim, 'post', '/_sim/reset?tenant=alice', BOB);
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual({ errorName: 'operationIsNotAllowed', message: "These credentials act on tenant 'bob' only; other tenants and everyone-wide calls need the admin token" });
    expect((await call(sim, 'get', '/_sim/tokens?tenant=alice', BOB)).status).toBe(403);
    expect((await call(sim, 'get', '/_sim/state?tenant=alice', BOB)).status).toBe(403);
    // Alice's token is still there.
    const own = await call(sim, 'get', '/_sim/tokens', ALICE);
    expect((own.body as { tokens: StateToken[] }).tokens.map((t) => t.tenant)).toEqual(['alice']);
  });

  it('acts on the tenant itself without ?tenant=: its reset, tokens, journal, clock and scenarios', async () => {
    const sim = sim2(adminToken);
    const { a } = await withTokens(sim);
    const tokens = await call(sim, 'get', '/_sim/tokens', BOB);
    expect(tokens.status).toBe(200);
    expect((tokens.body as { tokens: StateToken[] }).tokens.map((t) => t.tenant)).toEqual(['bob']);
    const journal = await call(sim, 'get', '/_sim/requests', BOB);
    expect((journal.body as { requests: { tenant: string }[] }).requests.map((e) => e.tenant)).toEqual(['bob']);
    // Naming itself is the same as naming no one.
    expect((await call(sim, 'get', '/_sim/tokens?tenant=bob', BOB)).status).toBe(200);

    // Bob's clock forks; the shared clock (alice's) does not move.
    expect((await call(sim, 'post', '/_sim/clock/advance', BOB, { by: 'P8D' })).body).toEqual({ now: '2030-01-09T00:00:00Z', frozen: true });
    expect((await call(sim, 'get', '/_sim/clock', BOB)).body.now).toBe('2030-01-09T00:00:00Z');
    expect((await call(sim, 'get', '/_sim/clock', ALICE)).body.now).toBe('2030-01-01T00:00:00Z');
    expect((await call(sim, 'put', '/_sim/clock', BOB, { now: '2030-01-02T00:00:00Z' })).status).toBe(200);
    expect((await call(sim, 'get', '/_sim/clock', ALICE)).body.now).toBe('2030-01-01T00:00:00Z');

    // Bob's scenarios are his own set, not the global one.
    const set = { name: 'bob-only', rules: [{ when: { operation: 'sale' }, then: { outcome: { outcome: 'refused' } } }] };
    expect((await call(sim, 'put', '/_sim/scenarios', BOB, set)).status).toBe(200);
    expect((await call(sim, 'get', '/_sim/scenarios', BOB)).body.scenarios).toHaveLength(1);
    expect((await call(sim, 'get', '/_sim/scenarios', ALICE)).body.scenarios).toEqual([]);
    expect((await call(sim, 'delete', '/_sim/scenarios', BOB)).status).toBe(204);

    // Bob's reset and journal clearing leave alice alone.
    expect((await call(sim, 'post', '/_sim/reset', BOB)).status).toBe(204);
    expect((await call(sim, 'delete', '/_sim/requests', BOB)).status).toBe(204);
    expect((await call(sim, 'get', '/_sim/tokens', BOB)).body.tokens).toEqual([]);
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(200);
  });

  it.each([
    ['get', '/_sim/clock?tenant=alice'],
    ['put', '/_sim/clock?tenant=alice'],
    ['post', '/_sim/clock/advance?tenant=alice'],
    ['post', '/_sim/reset?tenant=alice'],
    ['get', '/_sim/tokens?tenant=alice'],
    ['get', '/_sim/requests?tenant=alice'],
    ['delete', '/_sim/requests?tenant=alice'],
    ['get', '/_sim/scenarios?tenant=alice'],
    ['put', '/_sim/scenarios?tenant=alice'],
    ['delete', '/_sim/scenarios?tenant=alice'],
    ['get', '/_sim/state?tenant=alice'],
    ['put', '/_sim/state?tenant=alice'],
    ['get', '/_sim/tokens?tenant=nobody'],
    ['get', '/_sim/tokens?tenant=bob&tenant=alice'],
  ] as [Method, string][])('answers 403 to bob on %s %s', async (method, path) => {
    const sim = sim2(adminToken);
    const res = await call(sim, method, path, BOB, method === 'put' || method === 'post' ? {} : undefined);
    expect(res.status).toBe(403);
    expect(res.body.errorName).toBe('operationIsNotAllowed');
  });

  it("answers 403 to a tenant on the control plane's other calls, and keeps health open", async () => {
    const sim = sim2(adminToken);
    expect((await call(sim, 'get', '/_sim/health', BOB)).status).toBe(200);
    expect((await call(sim, 'get', '/_sim/no-such-call', BOB)).status).toBe(403);
    expect((await call(sim, 'get', '/_sim/openapi.json', BOB)).status).toBe(200);
  });

  it('answers 401 accessDenied to wrong Basic credentials, with a Basic challenge', async () => {
    const sim = sim2(adminToken);
    for (const authorization of [basic('bob', 'wrong'), basic('nobody', 'pb'), 'Basic !!!', 'Basic']) {
      const res = await call(sim, 'get', '/_sim/tokens', authorization);
      expect([authorization, res.status, res.body.errorName]).toEqual([authorization, 401, 'accessDenied']);
      expect(res.headers['www-authenticate']).toBe('Basic realm="token-sim"');
    }
  });

  it("exports only the tenant's state: its tokens, clock, scenario set and counters", async () => {
    const sim = sim2(adminToken);
    await withTokens(sim);
    await call(sim, 'post', '/_sim/clock/advance', ALICE, { by: 'P1D' });
    const res = await call(sim, 'get', '/_sim/state', ALICE);
    expect(res.status).toBe(200);
    const state = JSON.parse(res.text) as State;
    expect(state.tokens.map((t) => t.tenant)).toEqual(['alice']);
    expect(state.tenantClocks).toEqual({ alice: { now: '2030-01-02T00:00:00Z', frozen: true } });
    expect(Object.keys(state.counters.ids)).toEqual(['tokenId:alice']);

    // Bob follows the shared clock: his export carries it, and no tenant clock.
    const bobs = JSON.parse((await call(sim, 'get', '/_sim/state', BOB)).text) as State;
    expect(bobs.tenantClocks).toEqual({});
    expect(bobs.clock).toEqual({ now: '2030-01-01T00:00:00Z', frozen: true });
    expect(bobs.tokens.map((t) => t.tenant)).toEqual(['bob']);
  });

  it("imports a tenant's own export and leaves every other tenant's state untouched", async () => {
    const sim = sim2(adminToken);
    const { a, b } = await withTokens(sim);
    const own = (name: string) => ({ name, rules: [{ when: { operation: 'sale' }, then: { outcome: { outcome: 'refused' } } }] });
    await call(sim, 'put', '/_sim/scenarios', ALICE, own('alice-1'));
    await call(sim, 'put', '/_sim/scenarios', BOB, own('bob-1'));
    const exported = (await call(sim, 'get', '/_sim/state', ALICE)).text;
    await call(sim, 'post', '/_sim/reset', ALICE);
    await call(sim, 'delete', '/_sim/scenarios', ALICE);
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(404);
    const res = await request(handlerOf(sim)).put('/_sim/state').set('Authorization', ALICE).set('Content-Type', 'application/json').send(exported);
    expect(res.status).toBe(204);
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(200);
    expect((await client(sim, 'bob', 'pb').get(b['tokens:token']!)).status).toBe(200);
    const names = async (who: string) => ((await call(sim, 'get', '/_sim/scenarios', who)).body.scenarios as { name: string }[]).map((x) => x.name);
    expect([await names(ALICE), await names(BOB)]).toEqual([['alice-1'], ['bob-1']]);
    // Alice's next token id continues her own sequence (no clash); a second create of Bob's card still finds his token.
    const next = await createToken(client(sim, 'alice', 'pa'), createBody({ cardNumber: '378282246310005' }));
    expect(next['tokens:token']).not.toBe(a['tokens:token']);
    expect((await client(sim, 'bob', 'pb').create(bobCard)).status).toBe(200);
  });

  it("refuses a scoped import that moves alice's token to bob (the issue's reproduction)", async () => {
    const sim = sim2(adminToken);
    const { a, b } = await withTokens(sim);
    const exported = JSON.parse((await call(sim, 'get', '/_sim/state', ALICE)).text) as State;
    const refusal = (tenant: string, ...jsonPaths: string[]) => ({
      errorName: 'bodyDoesNotMatchSchema',
      message: 'The state does not match the schema',
      validationErrors: jsonPaths.map((jsonPath) => ({ errorName: 'fieldHasInvalidValue', message: `this import writes tenant '${tenant}' only`, jsonPath })),
    });
    // Bob imports alice's token (and her id counter) as they are: refused.
    const asIs = await call(sim, 'put', '/_sim/state', BOB, exported);
    expect([asIs.status, asIs.body]).toEqual([400, refusal('bob', '$.tokens[0].tenant', "$.counters.ids['tokenId:alice']")]);
    // Alice's own import, with her token given to bob: refused.
    const moved = { ...exported, tokens: exported.tokens.map((t) => ({ ...t, tenant: 'bob' })) };
    const res = await call(sim, 'put', '/_sim/state', ALICE, moved);
    expect([res.status, res.body]).toEqual([400, refusal('alice', '$.tokens[0].tenant')]);
    // Nothing changed.
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(200);
    expect((await client(sim, 'bob', 'pb').get(b['tokens:token']!)).status).toBe(200);
    expect((await call(sim, 'get', '/_sim/tokens', BOB)).body.tokens).toHaveLength(1);
  });

  it("refuses a scoped import that names another tenant's clock, scenarios or counters", async () => {
    const sim = sim2(adminToken);
    await withTokens(sim);
    const state = JSON.parse((await call(sim, 'get', '/_sim/state', BOB)).text) as State & { scenarios?: unknown };
    const tampered = {
      ...state,
      tenantClocks: { alice: { now: '2031-01-01T00:00:00Z', frozen: true } },
      counters: { ...state.counters, ids: { ...state.counters.ids, 'tokenId:alice': 0 } },
      scenarios: { alice: [] },
    };
    const res = await call(sim, 'put', '/_sim/state', BOB, tampered);
    expect(res.status).toBe(400);
    expect((res.body.validationErrors as { jsonPath: string }[]).map((p) => p.jsonPath).sort()).toEqual(["$.counters.ids['tokenId:alice']", '$.scenarios.alice', '$.tenantClocks.alice'].sort());
    expect((await call(sim, 'get', '/_sim/clock', ALICE)).body.now).toBe('2030-01-01T00:00:00Z');
  });
});

describe('the admin (or anyone, without --admin-token) on everyone-wide calls', () => {
  it.each([
    ['open, without --admin-token', undefined, undefined],
    ['the admin token', ADMIN, BEARER],
  ])('refuses a full import of a token of a tenant that is not configured (%s)', async (_name, adminToken, authorization) => {
    const sim = sim2(adminToken);
    const { a } = await withTokens(sim);
    const state = JSON.parse((await call(sim, 'get', '/_sim/state', authorization)).text) as State;
    state.tokens[1]!.tenant = 'mallory';
    const res = await call(sim, 'put', '/_sim/state', authorization, state);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([{ errorName: 'fieldHasInvalidValue', message: "'mallory' is not a configured username", jsonPath: '$.tokens[1].tenant' }]);
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(200);
  });

  it("lets the admin export and import one tenant's state with ?tenant=", async () => {
    const sim = sim2(ADMIN);
    const { a, b } = await withTokens(sim);
    const state = JSON.parse((await call(sim, 'get', '/_sim/state?tenant=alice', BEARER)).text) as State;
    expect(state.tokens.map((t) => t.tenant)).toEqual(['alice']);
    await call(sim, 'post', '/_sim/reset', BEARER);
    expect((await call(sim, 'put', '/_sim/state?tenant=alice', BEARER, state)).status).toBe(204);
    expect((await client(sim, 'alice', 'pa').get(a['tokens:token']!)).status).toBe(200);
    expect((await client(sim, 'bob', 'pb').get(b['tokens:token']!)).status).toBe(404);
    state.tokens[0]!.tenant = 'bob';
    expect((await call(sim, 'put', '/_sim/state?tenant=alice', BEARER, state)).status).toBe(400);
  });

  it('answers 401 without the admin token, and the admin acts on every tenant', async () => {
    const sim = sim2(ADMIN);
    await withTokens(sim);
    for (const authorization of [undefined, 'Bearer wrong']) {
      const res = await call(sim, 'get', '/_sim/tokens', authorization);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="token-sim"');
    }
    const all = await call(sim, 'get', '/_sim/tokens', BEARER);
    expect((all.body as { tokens: StateToken[] }).tokens.map((t) => t.tenant).sort()).toEqual(['alice', 'bob']);
    expect((await call(sim, 'post', '/_sim/reset?tenant=alice', BEARER)).status).toBe(204);
  });

  it('stays open without --admin-token to calls without credentials', async () => {
    const sim = sim2();
    await withTokens(sim);
    const all = await call(sim, 'get', '/_sim/tokens');
    expect((all.body as { tokens: StateToken[] }).tokens.map((t) => t.tenant).sort()).toEqual(['alice', 'bob']);
    expect((await call(sim, 'post', '/_sim/reset?tenant=alice')).status).toBe(204);
  });
});

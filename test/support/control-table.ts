/**
 * One table of control-surface behaviours, run against a simulator in this process (startSimulator) and
 * against one reached over HTTP (connectSimulator to the CLI), so that the two cannot drift apart. Every
 * call is awaited: in-process calls answer values, remote calls promises.
 */
import { expect } from '@jest/globals';

export const TABLE_START = '2030-01-01T00:00:00Z';
/** The flags (and the matching library options) both sides start with. */
export const TABLE_ARGS = ['--seed', 'table', '--now', TABLE_START, '--frozen', '--user', 'alice:alice-pw', '--user', 'bob:bob-pw', '--log', 'silent'];
export const TABLE_OPTIONS = { port: 0, seed: 'table', now: TABLE_START, frozen: true, users: ['alice:alice-pw', 'bob:bob-pw'], log: 'silent' as const };

const PASSWORDS: Record<string, string> = { alice: 'alice-pw', bob: 'bob-pw', merchant: 'secret' };
const TOKEN = 'application/vnd.service.tokens-v1.hal+json';

/** The calls the table makes; both surfaces have them (results awaited). */
export interface TableTenant {
  name: string;
  clock: { now(): unknown; advance(by: string | number): unknown; set(now: string | number | Date, frozen?: boolean): unknown };
  loadScenarios(...items: (string | object)[]): unknown;
  scenarios(): unknown;
  requests(filter?: Record<string, unknown>): unknown;
  clearRequests(): unknown;
  tokens(): unknown;
  reset(): unknown;
  webhooks(filter?: Record<string, unknown>): unknown;
  flushWebhooks(options?: Record<string, unknown>): unknown;
  magicValues(): unknown;
}
export interface TableSurface {
  clock: { now(tenant?: string): unknown; advance(by: string | number, tenant?: string): unknown };
  loadScenarios(...items: (string | object)[]): unknown;
  scenarios(): unknown;
  requests(query?: Record<string, unknown> | string): unknown;
  reset(tenant?: string): unknown;
  exportState(): unknown;
  importState(state: unknown): unknown;
  webhooks(query?: Record<string, unknown> | string): unknown;
  flushWebhooks(options?: Record<string, unknown>): unknown;
  magicValues(tenant?: string): unknown;
  tenant(name: string): TableTenant;
}

interface Entry {
  seq: number;
  tenant: string | null;
  operation: string;
  status: number;
  rule: string | null;
}

/** A tiny API client for one tenant (plain fetch, as a user's client would). */
export function api(url: string, user: string) {
  const auth = `Basic ${Buffer.from(`${user}:${PASSWORDS[user] ?? ''}`).toString('base64')}`;
  return {
    async create(cardNumber: string): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${url}/tokens`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': TOKEN, Accept: TOKEN },
        body: JSON.stringify({
          paymentInstrument: { type: 'card/front', cardHolderName: 'Table Test', cardNumber, cardExpiryDate: { month: 5, year: 2035 } },
          merchant: { entity: 'default' },
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async get(href: string): Promise<number> {
      const res = await fetch(href, { headers: { Authorization: auth, Accept: TOKEN } });
      await res.arrayBuffer();
      return res.status;
    },
  };
}

const hrefOf = (body: Record<string, unknown>): string => (body.tokenPaymentInstrument as { href: string }).href;

const outage = (name: string, status: number, errorName: string, extra: Record<string, unknown> = {}) => ({
  name,
  rules: [{ id: `${name}-rule`, when: { operation: 'createToken', ...extra }, then: { error: { status, errorName, message: `${name} scripted` } } }],
});

/** Awaits a call that may throw synchronously (in-process) or reject (remote). */
const attempt = (fn: () => unknown): Promise<unknown> => Promise.resolve().then(fn);

export interface TableCase {
  name: string;
  run(sim: TableSurface, url: string): Promise<void>;
}

export const CONTROL_TABLE: TableCase[] = [
  {
    name: 'a tenant clock moves alone',
    async run(sim) {
      const alice = sim.tenant('alice');
      expect(await alice.clock.advance('P8D')).toBe('2030-01-09T00:00:00Z');
      expect(await alice.clock.now()).toBe('2030-01-09T00:00:00Z');
      expect(await sim.tenant('bob').clock.now()).toBe(TABLE_START);
      expect(await sim.clock.now()).toBe(TABLE_START);
      expect(await alice.clock.set('2030-03-01T12:00:00Z')).toBe('2030-03-01T12:00:00Z');
      expect(await sim.clock.now('alice')).toBe('2030-03-01T12:00:00Z');
    },
  },
  {
    name: "a tenant's own tokens expire on its own clock",
    async run(sim, url) {
      const alice = sim.tenant('alice');
      const bobApi = api(url, 'bob');
      const mine = await api(url, 'alice').create('4444333322221111');
      const theirs = await bobApi.create('4444333322221111');
      expect([mine.status, theirs.status]).toEqual([201, 201]);
      await alice.clock.advance('P8D');
      expect(await api(url, 'alice').get(hrefOf(mine.body))).toBe(404);
      expect(await bobApi.get(hrefOf(theirs.body))).toBe(200);
      expect(await alice.tokens()).toEqual([]);
      expect(((await sim.tenant('bob').tokens()) as { tenant: string }[]).map((t) => t.tenant)).toEqual(['bob']);
    },
  },
  {
    name: "a tenant's scenario set is its own",
    async run(sim, url) {
      const alice = sim.tenant('alice');
      await alice.loadScenarios(outage('alice-outage', 503, 'serviceUnavailable'));
      expect((await api(url, 'alice').create('4444333322221111')).status).toBe(503);
      expect((await api(url, 'bob').create('4444333322221111')).status).toBe(201);
      expect(((await alice.scenarios()) as { name: string }[]).map((s) => s.name)).toEqual(['alice-outage']);
      expect(await sim.tenant('bob').scenarios()).toEqual([]);
      expect(await sim.scenarios()).toEqual([]);
      await alice.loadScenarios();
      expect(await alice.scenarios()).toEqual([]);
      expect((await api(url, 'alice').create('4444333322221111')).status).toBe(201);
    },
  },
  {
    name: "a tenant's set is evaluated before the global set",
    async run(sim, url) {
      await sim.loadScenarios(outage('global-outage', 500, 'internalErrorOccurred'));
      await sim.tenant('bob').loadScenarios(outage('bob-outage', 503, 'serviceUnavailable'));
      const bob = await api(url, 'bob').create('4444333322221111');
      const alice = await api(url, 'alice').create('4444333322221111');
      expect([bob.status, bob.body.errorName]).toEqual([503, 'serviceUnavailable']);
      expect([alice.status, alice.body.errorName]).toEqual([500, 'internalErrorOccurred']);
      const rules = ((await sim.requests({ operation: 'createToken' })) as Entry[]).map((e) => [e.tenant, e.rule]);
      expect(rules).toEqual([
        ['bob', 'bob-outage-rule'],
        ['alice', 'global-outage-rule'],
      ]);
    },
  },
  {
    name: 'reset of a tenant keeps its set and zeroes its counts',
    async run(sim, url) {
      const alice = sim.tenant('alice');
      await alice.loadScenarios(outage('first-fails', 503, 'serviceUnavailable', { nth: 1 }));
      const client = api(url, 'alice');
      expect((await client.create('4444333322221111')).status).toBe(503);
      expect((await client.create('4444333322221111')).status).toBe(201);
      await alice.reset();
      expect(((await alice.scenarios()) as { name: string }[]).map((s) => s.name)).toEqual(['first-fails']);
      expect(await alice.requests()).toEqual([]);
      expect((await client.create('4444333322221111')).status).toBe(503);
    },
  },
  {
    name: 'the journal filters by operation, status, rule, since and limit',
    async run(sim, url) {
      const alice = sim.tenant('alice');
      const client = api(url, 'alice');
      const created = await client.create('4444333322221111');
      await client.create('4012888888881881');
      await client.get(hrefOf(created.body));
      await api(url, 'bob').create('4444333322221111');
      expect(((await alice.requests({ operation: 'createToken' })) as Entry[]).map((e) => e.status)).toEqual([201, 201]);
      expect(((await alice.requests({ status: 200 })) as Entry[]).map((e) => e.operation)).toEqual(['getToken']);
      const all = (await alice.requests()) as Entry[];
      expect(all.map((e) => e.tenant)).toEqual(['alice', 'alice', 'alice']);
      const first = all[0] as Entry;
      expect(((await alice.requests({ since: first.seq })) as Entry[]).length).toBe(2);
      expect(((await alice.requests({ limit: 1 })) as Entry[]).map((e) => e.seq)).toEqual([first.seq]);
      expect(((await sim.requests({ tenant: 'bob' })) as Entry[]).length).toBe(1);
      expect(((await sim.requests('bob')) as Entry[]).length).toBe(1);
      await alice.clearRequests();
      expect(await alice.requests()).toEqual([]);
      expect(((await sim.requests()) as Entry[]).length).toBe(1);
    },
  },
  {
    name: "a snapshot carries tenants' own sets",
    async run(sim, url) {
      const alice = sim.tenant('alice');
      await alice.loadScenarios(outage('kept', 503, 'serviceUnavailable', { cardNumber: '4444333322221111' }));
      const state = await sim.exportState();
      expect(JSON.stringify(state)).not.toContain('4444333322221111');
      await alice.loadScenarios();
      await sim.importState(state);
      expect(((await alice.scenarios()) as { name: string }[]).map((s) => s.name)).toEqual(['kept']);
      expect((await api(url, 'alice').create('4444333322221111')).status).toBe(503);
      expect((await api(url, 'alice').create('4012888888881881')).status).toBe(201);
      expect(await sim.tenant('bob').scenarios()).toEqual([]);
    },
  },
  {
    name: 'refusals are SimulatorErrors with the HTTP errorName and JSONPath',
    async run(sim) {
      await expect(attempt(() => sim.tenant('nobody').clock.now())).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
      await expect(attempt(() => sim.tenant('alice').clock.advance('-P1D'))).rejects.toMatchObject({
        errorName: 'bodyDoesNotMatchSchema',
        details: { validationErrors: [expect.objectContaining({ jsonPath: '$.by' })] },
      });
      await expect(attempt(() => sim.tenant('alice').clock.set('2030-02-31T00:00:00Z'))).rejects.toMatchObject({
        errorName: 'bodyDoesNotMatchSchema',
        details: { validationErrors: [expect.objectContaining({ jsonPath: '$.now' })] },
      });
      await expect(attempt(() => sim.tenant('alice').loadScenarios({ name: 'typo', rules: [{ when: { opertion: 'sale' }, then: { delayMs: 1 } }] }))).rejects.toMatchObject({
        errorName: 'bodyDoesNotMatchSchema',
        details: { validationErrors: [expect.objectContaining({ errorName: 'fieldIsNotAllowed', jsonPath: '$.rules[0].when.opertion' })] },
      });
      // A bad journal filter: the same refusal as GET /_sim/requests?operation=… (read by its rules on both sides).
      await expect(attempt(() => sim.requests({ operation: 'refund-everything' }))).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
      await expect(attempt(() => sim.tenant('alice').requests({ opertion: 'sale' }))).rejects.toMatchObject({
        errorName: 'urlContainsInvalidValue',
        message: expect.stringContaining('operation'),
      });
      await expect(attempt(() => sim.requests({ limit: -1 }))).rejects.toMatchObject({ errorName: 'urlContainsInvalidValue' });
      expect(await sim.tenant('alice').scenarios()).toEqual([]);
    },
  },
  {
    // Decision 0030: the same calls and refusals in process and remotely (deliveries themselves: test/control/webhooks-library.test.ts).
    name: 'webhook deliveries are listed and flushed alike, and bad queries refused alike',
    async run(sim) {
      expect(await sim.webhooks()).toEqual([]);
      expect(await sim.webhooks({ tenant: 'alice', state: 'failed', limit: 5 })).toEqual([]);
      expect(await sim.flushWebhooks({ timeoutMs: 1000 })).toEqual({ flushed: true, pending: 0 });
      expect(await sim.tenant('alice').webhooks({ state: 'delivered' })).toEqual([]);
      expect(await sim.tenant('alice').flushWebhooks()).toEqual({ flushed: true, pending: 0 });
      await expect(attempt(() => sim.webhooks({ state: 'lost' }))).rejects.toMatchObject({
        name: 'SimulatorError',
        errorName: 'urlContainsInvalidValue',
        details: { validationErrors: [{ errorName: 'fieldHasInvalidValue', message: 'state must be pending, held, delivered, failed or dropped, given once' }] },
      });
      await expect(attempt(() => sim.webhooks('nobody'))).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
      await expect(attempt(() => sim.tenant('nobody').flushWebhooks())).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
      await expect(attempt(() => sim.flushWebhooks({ timeoutMs: 60_001 }))).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
    },
  },
  {
    // Decision 0057: the same catalogue in process and remotely; a tenant's own amounts first.
    name: 'the magic values are listed alike, a tenant’s own scenario amounts first',
    async run(sim) {
      const rule = (id: string, amount: number) => ({ id, when: { operation: 'sale', amount }, then: { outcome: { outcome: 'refused', refusalCode: '51' } } });
      await sim.loadScenarios({ name: 'everyone', rules: [rule('global-2051', 2051)] });
      await sim.tenant('alice').loadScenarios({ name: 'alices', rules: [rule('alice-2052', 2052)] });
      type Values = { cardHolderNames: { value: string }[]; amounts: { rule: string; set: string }[]; cards: { value: string | null }[] };
      const everyone = (await sim.magicValues()) as Values;
      expect(everyone.cardHolderNames.slice(0, 3).map((n) => n.value)).toEqual(['ERROR', 'REFUSED', 'REFUSED4']);
      expect(everyone.cards.at(-1)?.value).toBeNull();
      expect(everyone.amounts.map((a) => [a.rule, a.set])).toEqual([['global-2051', 'global']]);
      const alice = (await sim.tenant('alice').magicValues()) as Values;
      expect(alice.amounts.map((a) => [a.rule, a.set])).toEqual([
        ['alice-2052', 'tenant'],
        ['global-2051', 'global'],
      ]);
      expect(await sim.magicValues('alice')).toEqual(alice);
      expect((await sim.tenant('bob').magicValues()) as Values).toEqual(everyone);
      await expect(attempt(() => sim.magicValues('nobody'))).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
    },
  },
  {
    // Issue 13: the clock's range is 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (decision 0021).
    name: 'clock moves out of the range are refused at $.by and $.now, and the clock stays',
    async run(sim) {
      const refusedAt = (jsonPath: string) => ({
        name: 'SimulatorError',
        errorName: 'bodyDoesNotMatchSchema',
        details: expect.objectContaining({ validationErrors: [expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath })] }),
      });
      await expect(attempt(() => sim.clock.advance(8640000000000000))).rejects.toMatchObject(refusedAt('$.by'));
      await expect(attempt(() => sim.tenant('alice').clock.advance('P8000Y'))).rejects.toMatchObject(refusedAt('$.by'));
      await expect(attempt(() => sim.tenant('alice').clock.set('9999-12-31T23:59:59-01:00'))).rejects.toMatchObject(refusedAt('$.now'));
      await expect(attempt(() => sim.tenant('alice').clock.set(253402300800000))).rejects.toMatchObject(refusedAt('$.now'));
      await expect(attempt(() => sim.tenant('bob').clock.set(new Date(-62135596800001)))).rejects.toMatchObject(refusedAt('$.now'));
      expect(await sim.clock.now()).toBe(TABLE_START);
      expect(await sim.clock.now('alice')).toBe(TABLE_START);
      expect(await sim.tenant('bob').clock.set('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    },
  },
];

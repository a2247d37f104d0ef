/**
 * Property (issue 13): no sequence of control calls breaks the simulator. Random sequences of clock moves
 * (advance and set, shared and per tenant, with extreme values: the range's edges, past them, past what a
 * date can hold, negative, malformed), resets (one tenant or all), imports of the simulator's own export,
 * scenario loads and clears (global and per tenant, valid and not), interleaved with API calls (create, get,
 * update, delete, sale) and /_sim reads, never see a 5xx answer, and neither do the reads after them; and
 * the simulator always takes back its own export.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import type { Response } from 'supertest';
import { HOST, TOKEN_TYPE, createBody, handlerOf, testSimulator } from '../support/sim.js';
import { SALE_PATH, SALE_REQUEST, SALE_RESPONSE, saleBody } from '../support/sale.js';

type Sim = ReturnType<typeof testSimulator>;
const USERS = [
  { name: 'merchant', password: 'secret' },
  { name: 'bob', password: 'bob-secret' },
];

// The clock's range and what lies around it (decision 0021).
const END_MS = 253_402_300_799_999;
const START_MS = -62_135_596_800_000;
const MAX_DATE_MS = 8_640_000_000_000_000;

const tenantArb = fc.constantFrom<string | undefined>(undefined, 'merchant', 'bob', 'nobody');
const byArb = fc.oneof(
  fc.constantFrom<unknown>(0, 1, 1000, 86_400_000, MAX_DATE_MS, END_MS, END_MS - START_MS, Number.MAX_SAFE_INTEGER, 1e308, -1, 'P8D', 'PT1S', 'P7980Y', 'P300000Y', 'P9999Y12M', 'PT0S', 'nonsense', null, '1e400'),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: false }),
);
const nowArb = fc.oneof(
  fc.constantFrom<unknown>(
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.998Z',
    '9999-12-31T23:00:00Z',
    '9999-12-31T23:59:59-01:00',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00+00:01',
    '0000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
    '2030-01-01T00:00:00Z',
    '1970-01-01',
    '2030-02-31T00:00:00Z',
    12,
  ),
  fc.integer({ min: START_MS, max: END_MS }).map((ms) => new Date(ms).toISOString()),
);
const frozenArb = fc.option(fc.boolean(), { nil: undefined });

/** Scenario sets: valid ones (profiles, preloaded tokens with extreme expiries, time windows) and broken ones. */
const SCENARIOS: unknown[] = [
  { name: 'live', profile: 'live', rules: [] },
  { name: 'refusals', rules: [{ when: { operation: 'sale', amount: { min: 1000 } }, then: { outcome: { outcome: 'refused', refusalCode: '51', refusalDescription: 'LIMIT' } } }] },
  { name: 'window', rules: [{ when: { operation: 'getToken', between: { from: '0001-01-01T00:00:00Z', until: '9999-12-31T23:59:59.999Z' } }, then: { error: { status: 409, errorName: 'conflict', message: 'scripted' } } }] },
  { name: 'preload', tokens: [{ ...createBody({ cardNumber: '5555555555554444' }), tokenExpiryDateTime: '9999-12-31T23:59:59-05:00' }], rules: [] },
  { name: 'broken', rules: [{ when: { operation: 'nothing' } }] },
  { name: 'many-problems', rules: Array.from({ length: 300 }, () => ({ x: 0 })) },
];

const CARDS = ['4444333322221111', '5555555555554444', '4111111111111111'];

type Command =
  | { kind: 'advance'; by: unknown; tenant: string | undefined }
  | { kind: 'set'; now: unknown; frozen: boolean | undefined; tenant: string | undefined }
  | { kind: 'reset'; tenant: string | undefined }
  | { kind: 'roundTrip'; tenant: string | undefined }
  | { kind: 'scenarios'; index: number; tenant: string | undefined }
  | { kind: 'clearScenarios'; tenant: string | undefined }
  | { kind: 'create'; user: number; card: number; expiry: string | undefined }
  | { kind: 'get' | 'update' | 'delete' | 'sale'; user: number; pick: number }
  | { kind: 'read'; what: number; tenant: string | undefined };

const userArb = fc.integer({ min: 0, max: USERS.length - 1 });
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), by: byArb, tenant: tenantArb }),
  fc.record({ kind: fc.constant('set' as const), now: nowArb, frozen: frozenArb, tenant: tenantArb }),
  fc.record({ kind: fc.constant('reset' as const), tenant: tenantArb }),
  fc.record({ kind: fc.constant('roundTrip' as const), tenant: tenantArb }),
  fc.record({ kind: fc.constant('scenarios' as const), index: fc.integer({ min: 0, max: SCENARIOS.length - 1 }), tenant: tenantArb }),
  fc.record({ kind: fc.constant('clearScenarios' as const), tenant: tenantArb }),
  fc.record({
    kind: fc.constant('create' as const),
    user: userArb,
    card: fc.integer({ min: 0, max: CARDS.length - 1 }),
    expiry: fc.option(fc.constantFrom('9999-12-31T23:59:59Z', '9999-12-31T23:59:59-23:59', '2030-01-02T00:00:00Z', '0001-01-01T00:00:00Z'), { nil: undefined }),
  }),
  fc.record({ kind: fc.constantFrom('get' as const, 'update' as const, 'delete' as const, 'sale' as const), user: userArb, pick: fc.nat() }),
  fc.record({ kind: fc.constant('read' as const), what: fc.nat({ max: 4 }), tenant: tenantArb }),
);

const READS = ['/_sim/clock', '/_sim/tokens', '/_sim/requests', '/_sim/state', '/_sim/scenarios'];
const query = (tenant: string | undefined): string => (tenant === undefined ? '' : `?tenant=${tenant}`);

/** Runs one command; answers every response it saw. */
async function run(sim: Sim, hrefs: string[][], command: Command): Promise<Response[]> {
  const agent = request(handlerOf(sim));
  const api = <T extends request.Test>(t: T, user: number): T =>
    t.auth(USERS[user]!.name, USERS[user]!.password).set('Accept', TOKEN_TYPE).set('Host', HOST);
  const hrefOf = (user: number, pick: number): string | undefined => {
    const list = hrefs[user]!;
    return list.length === 0 ? undefined : new URL(list[pick % list.length]!).pathname;
  };
  switch (command.kind) {
    case 'advance':
      return [await agent.post(`/_sim/clock/advance${query(command.tenant)}`).send({ by: command.by })];
    case 'set':
      return [await agent.put(`/_sim/clock${query(command.tenant)}`).send({ now: command.now, ...(command.frozen !== undefined && { frozen: command.frozen }) })];
    case 'reset':
      return [await agent.post(`/_sim/reset${query(command.tenant)}`)];
    case 'roundTrip': {
      // With a tenant, its own part only (decision 0026): that import must take its export too.
      const exported = await agent.get(`/_sim/state${query(command.tenant)}`);
      if (exported.status !== 200) return [exported];
      return [exported, await agent.put(`/_sim/state${query(command.tenant)}`).set('Content-Type', 'application/json').send(exported.text)];
    }
    case 'scenarios':
      return [await agent.put(`/_sim/scenarios${query(command.tenant)}`).send(SCENARIOS[command.index] as object)];
    case 'clearScenarios':
      return [await agent.delete(`/_sim/scenarios${query(command.tenant)}`)];
    case 'create': {
      const body = createBody({ cardNumber: CARDS[command.card] }, command.expiry === undefined ? {} : { tokenExpiryDateTime: command.expiry });
      const res = await api(agent.post('/tokens'), command.user).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(body));
      const href = (res.body as { _links?: Record<string, { href: string }> })._links?.['tokens:token']?.href;
      if (href !== undefined) hrefs[command.user]!.push(href);
      return [res];
    }
    case 'get':
    case 'update':
    case 'delete': {
      const path = hrefOf(command.user, command.pick);
      if (path === undefined) return [];
      if (command.kind === 'get') return [await api(agent.get(path), command.user)];
      if (command.kind === 'delete') return [await api(agent.delete(path), command.user)];
      return [await api(agent.put(path), command.user).set('Content-Type', TOKEN_TYPE).send(JSON.stringify({ description: 'renamed' }))];
    }
    case 'sale': {
      const list = hrefs[command.user]!;
      const instrument = list.length === 0 ? undefined : { type: 'card/token', href: list[command.pick % list.length] };
      const body = instrument === undefined ? saleBody() : saleBody(instrument);
      return [
        await agent
          .post(SALE_PATH)
          .auth(USERS[command.user]!.name, USERS[command.user]!.password)
          .set('Host', HOST)
          .set('Content-Type', SALE_REQUEST)
          .set('Accept', SALE_RESPONSE)
          .send(JSON.stringify(body)),
      ];
    }
    case 'read':
      return [await agent.get(`${READS[command.what]!}${query(command.tenant)}`)];
  }
}

describe('random sequences of control calls', () => {
  it('never answer 5xx, then or on any later request', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), fc.boolean(), async (commands, frozen) => {
        const sim = testSimulator({ frozen, users: ['bob:bob-secret'] });
        const hrefs: string[][] = USERS.map(() => []);
        const seen: string[] = [];
        const check = (command: unknown, responses: Response[]): void => {
          for (const res of responses) {
            seen.push(`${res.status} ${JSON.stringify(command)}`);
            if (res.status >= 500) throw new Error(`${res.status} after ${seen.join('\n')}\n${res.text.slice(0, 500)}`);
          }
        };
        for (const command of commands) {
          const responses = await run(sim, hrefs, command);
          check(command, responses);
          // The simulator takes back its own export, whatever came before.
          if (command.kind === 'roundTrip' && responses.length === 2 && responses[1]!.status !== 204) {
            throw new Error(`the import of the simulator's own export answered ${responses[1]!.status}: ${responses[1]!.text.slice(0, 500)} EXPORT ${responses[0]!.text.slice(0, 3000)}`);
          }
        }
        // Every read, for every tenant and for all, still answers.
        for (const tenant of [undefined, 'merchant', 'bob']) {
          for (let what = 0; what < READS.length; what++) check({ finalRead: READS[what], tenant }, await run(sim, hrefs, { kind: 'read', what, tenant }));
        }
        check('final create', await run(sim, hrefs, { kind: 'create', user: 0, card: 2, expiry: undefined }));
        check('final get', await run(sim, hrefs, { kind: 'get', user: 0, pick: hrefs[0]!.length - 1 }));
        expect(seen.length).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});

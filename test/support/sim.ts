/** Test helpers: a seeded, frozen simulator and a small client that speaks the token API through supertest. */
import type { RequestListener } from 'node:http';
import request from 'supertest';
import type { Response } from 'supertest';
import type { SimulatorOptions } from '../../src/config/options.js';
// The composed simulator with its internals (app is the Express app): the public view is tested in test/packaging/.
import { createSimulator, type ComposedSimulator } from '../../src/simulator/compose.js';
import type { Simulator } from '../../src/simulator/facade.js';
import type { Simulator as PublicSimulator } from '../../src/index.js';

export const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
export const START = '2030-01-01T00:00:00.000Z';
export const HOST = 'token-sim.localhost';

/** The request listener of a simulator, as composed or as the library hands it out (decision 0046: there is one). */
export function handlerOf(sim: Pick<PublicSimulator, 'listener'>): RequestListener {
  return sim.listener;
}

/**
 * Which store the HTTP tests run on: the "http (redis)" project sets TOKEN_SIM_TEST_STORE=redis, and its
 * global set-up starts a redis-server (test/support/redis-global.mjs); each simulator gets a key prefix of its own.
 */
const REDIS_URL = process.env.TOKEN_SIM_TEST_STORE === 'redis' ? process.env.JEST_REDIS_URL : undefined;
let simulatorCount = 0;
/** Simulators on Redis, closed after each file (test/support/redis-sims.ts). */
export const openedSimulators: ComposedSimulator[] = [];

export function testSimulator(options: SimulatorOptions = {}): Simulator {
  const store = REDIS_URL === undefined || options.store !== undefined ? {} : { store: REDIS_URL, storePrefix: `http:${process.pid}:${++simulatorCount}:${Date.now()}:` };
  const sim = createSimulator({ seed: 'test', now: START, frozen: true, ...store, ...options }, { writeErr: () => undefined });
  if (REDIS_URL !== undefined) openedSimulators.push(sim);
  return sim;
}

export interface CardBody {
  [key: string]: unknown;
}

/** A valid create body; `overrides` replace top-level fields, `card` replaces paymentInstrument fields. */
export function createBody(card: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}): CardBody {
  return {
    paymentInstrument: {
      type: 'card/front',
      cardHolderName: 'Sherlock Holmes',
      cardNumber: '4444333322221111',
      cardExpiryDate: { month: 5, year: 2035 },
      ...card,
    },
    merchant: { entity: 'default' },
    ...overrides,
  };
}

export const ADDRESS = { address1: '221B Baker Street', postalCode: 'NW1 6XE', city: 'London', countryCode: 'GB' };

/** The path of an absolute href (supertest talks to the app, not to the href's host). */
export const pathOf = (href: string): string => new URL(href).pathname;

export function client(sim: Pick<PublicSimulator, 'app' | 'listener'>, user = 'merchant', password = 'secret') {
  const agent = request(handlerOf(sim));
  // A fixed Host, so that hrefs (built from it) are the same across supertest's per-request servers.
  const auth = <T extends request.Test>(t: T): T => t.auth(user, password).set('Accept', TOKEN_TYPE).set('Host', HOST);
  return {
    create: (body: unknown): Promise<Response> =>
      auth(agent.post('/tokens')).set('Content-Type', TOKEN_TYPE).send(JSON.stringify(body)),
    get: (href: string): Promise<Response> => auth(agent.get(pathOf(href))),
    put: (href: string, body?: unknown): Promise<Response> => {
      const t = auth(agent.put(pathOf(href))).set('Content-Type', TOKEN_TYPE);
      return body === undefined ? t : t.send(JSON.stringify(body));
    },
    delete: (href: string): Promise<Response> => auth(agent.delete(pathOf(href))),
  };
}

export type Client = ReturnType<typeof client>;

/** Creates a token and returns its representation's links by name. */
export async function createToken(api: Client, body: unknown = createBody()): Promise<Record<string, string>> {
  const res = await api.create(body);
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${res.text}`);
  const links = (res.body as { _links: Record<string, { href: string }> })._links;
  return Object.fromEntries(Object.entries(links).filter(([k]) => k !== 'curies').map(([k, v]) => [k, v.href]));
}

/** The path of a shipped scenario file. */
export const scenarioFile = (name: string): string => new URL(`../../scenarios/${name}`, import.meta.url).pathname;

/** Polls a condition on the event loop (for socket events another process or peer triggers), bounded. */
export async function eventually(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

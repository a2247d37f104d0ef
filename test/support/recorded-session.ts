/**
 * Recordings for the record/verify tests (issue 27): a token-sim started with some options, a recording proxy in
 * front of it, and a client session sent through the proxy, following the links the proxy hands out.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimulatorOptions } from '../../src/config/options.js';
import { startSimulator } from '../../src/simulator/server.js';
import { record } from '../../src/verify/recorder.js';

/** The media types of the simulator's `--vendor` (`service` by default). */
const typesOf = (vendor: string): { TOKENS: string; SALE: string; SALE_HAL: string } => ({
  TOKENS: `application/vnd.${vendor}.tokens-v1.hal+json`,
  SALE: `application/vnd.${vendor}.payments-v5+json`,
  SALE_HAL: `application/vnd.${vendor}.payments-v5.hal+json`,
});

/** The Redis store when the project runs on it (test/support/sim.ts reads the same variable), else none. */
export function storeOptions(label: string): SimulatorOptions {
  const url = process.env.TOKEN_SIM_TEST_STORE === 'redis' ? process.env.JEST_REDIS_URL : undefined;
  return url === undefined ? {} : { store: url, storePrefix: `verify:${label}:${process.pid}:${Date.now()}:${Math.random()}:` };
}

export interface SessionCard {
  cardNumber: string;
  cvc: string;
  cardHolderName: string;
}

export interface Credentials {
  user: string;
  password: string;
}

const basic = ({ user, password }: Credentials): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * A session: per card a token created twice, read, renamed and used in a sale with its CVC, a plain-card sale, an
 * invalid create, an unknown path and a wrong password; and the first token deleted at the end.
 */
export async function runSession(base: string, credentials: Credentials, cards: readonly SessionCard[], vendor = 'service'): Promise<void> {
  const { TOKENS, SALE, SALE_HAL } = typesOf(vendor);
  const auth = basic(credentials);
  const call = async (method: string, url: string, type: string | undefined, body?: unknown, authorization = auth): Promise<Response> =>
    fetch(url.startsWith('http') ? url : base + url, {
      method,
      headers: { Authorization: authorization, ...(type !== undefined && { Accept: type }), ...(body !== undefined && { 'Content-Type': type === SALE_HAL ? SALE : (type ?? TOKENS) }) },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const hrefs: string[] = [];
  let order = 0;
  for (const card of cards) {
    const instrument = { cardNumber: card.cardNumber, cardHolderName: card.cardHolderName, cardExpiryDate: { month: 5, year: 2035 } };
    const create = { paymentInstrument: { type: 'card/front', ...instrument }, merchant: { entity: 'default' } };
    const created = (await (await call('POST', '/tokens', TOKENS, create)).json()) as { _links: Record<string, { href: string }> };
    await (await call('POST', '/tokens', TOKENS, create)).text();
    const token = created._links['tokens:token']?.href as string;
    hrefs.push(token);
    await (await call('GET', token, TOKENS)).text();
    await (await call('PUT', created._links['tokens:cardHolderName']?.href as string, TOKENS, JSON.stringify(card.cardHolderName))).text();
    const sale = (paymentInstrument: unknown): unknown => ({
      transactionReference: `order-${++order}`,
      merchant: { entity: 'default' },
      instruction: { narrative: { line1: 'verify' }, value: { currency: 'GBP', amount: 1250 }, paymentInstrument },
      channel: 'moto',
    });
    await (await call('POST', '/payments/sales/migrateCardOnFile', SALE_HAL, sale({ type: 'card/token', href: token, cvc: card.cvc }))).text();
    await (await call('POST', '/payments/sales/migrateCardOnFile', SALE_HAL, sale({ type: 'card/plain', ...instrument, cvc: card.cvc }))).text();
  }
  await (await call('POST', '/tokens', TOKENS, { paymentInstrument: { type: 'card/front', cardNumber: 12 }, merchant: {} })).text();
  await (await call('GET', '/nowhere', TOKENS)).text();
  await (await call('GET', hrefs[0] ?? '/tokens/x', TOKENS, undefined, basic({ user: credentials.user, password: `${credentials.password}x` }))).text();
  if (hrefs[0] !== undefined) await (await call('DELETE', hrefs[0], TOKENS)).text();
}

/** Records `session` against a token-sim started with `options`; resolves with the HAR file's path. */
export async function recordSession(options: SimulatorOptions, session: (proxy: string) => Promise<void>): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'token-sim-record-')), 'session.har');
  const upstream = await startSimulator({ port: 0, ...options }, { writeErr: () => undefined });
  try {
    const recording = await record({ upstream: upstream.url, out });
    try {
      await session(recording.url);
    } finally {
      await recording.close();
    }
  } finally {
    await upstream.close();
  }
  return out;
}

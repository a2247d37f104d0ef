/**
 * Large reads page, and the remote client follows the pages: more than one page of the HTTP maximum
 * (10,000) of journal entries, and more than the default page (1,000) of tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectSimulator, startSimulator, type RunningSimulator } from '../../src/index.js';
import { luhnCard } from '../support/cards.js';

const T = 'application/vnd.service.tokens-v1.hal+json';
const auth = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;

let sim: RunningSimulator;
const TOKENS = 1_005;
const UNAUTHENTICATED = 10_000;

/**
 * Sends again a request whose kept-alive connection the server had just closed as idle (ECONNRESET before any
 * answer: the request never reached the simulator, so nothing is counted twice). On a loaded machine a batch
 * can stall past the server's keep-alive timeout, and fetch then reuses a socket that is being closed.
 */
async function resent<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
    return send();
  }
}

async function inBatches(n: number, send: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, j) => resent(() => send(i + j))));
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, frozen: true, journalSize: 20_000, journalTotal: 20_000 });
  await inBatches(TOKENS, (i) =>
    fetch(`${sim.url}/tokens`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': T, Accept: T },
      body: JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Page Test', cardNumber: luhnCard(i), cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } }),
    }).then((r) => r.arrayBuffer()),
  );
  await inBatches(UNAUTHENTICATED, () => fetch(`${sim.url}/tokens`).then((r) => r.arrayBuffer()));
}, 120_000);

afterAll(() => sim.close());

describe('paged reads', () => {
  it('GET /_sim/tokens answers 1,000 tokens by default, then the rest', async () => {
    const first = (await (await fetch(`${sim.url}/_sim/tokens`)).json()) as { tokens: unknown[]; next: string | null };
    expect(first.tokens).toHaveLength(1000);
    expect(first.next).not.toBeNull();
    const rest = (await (await fetch(`${sim.url}/_sim/tokens?cursor=${first.next}`)).json()) as { tokens: unknown[]; next: string | null };
    expect([rest.tokens.length, rest.next]).toEqual([TOKENS - 1000, null]);
  }, 30_000);

  it('GET /_sim/requests answers at most 10,000 entries, with the count of all', async () => {
    const page = (await (await fetch(`${sim.url}/_sim/requests?limit=10000`)).json()) as { requests: unknown[]; count: number; next: string | null };
    expect([page.requests.length, page.count, page.next === null]).toEqual([10_000, TOKENS + UNAUTHENTICATED, false]);
  }, 30_000);

  it('connectSimulator follows the pages: every token and every entry, in order, as in process', async () => {
    const remote = connectSimulator(sim.url);
    const tokens = await remote.tokens();
    expect(tokens.map((t) => t.tokenId)).toEqual(sim.tokens().map((t) => t.tokenId));
    const entries = await remote.requests();
    expect(entries.length).toBe(TOKENS + UNAUTHENTICATED);
    expect(entries.map((e) => e.seq)).toEqual(sim.requests().map((e) => e.seq));
    expect((await remote.requests({ limit: 10_003 })).map((e) => e.seq)).toEqual(entries.slice(0, 10_003).map((e) => e.seq));
  }, 60_000);
});

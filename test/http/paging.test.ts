/** Paged /_sim reads (contract 3.6): limit (default 1000, at most 10000), cursor, next. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { client, createBody, handlerOf, testSimulator } from '../support/sim.js';

const CARDS = ['4444333322221111', '4012888888881881', '5555555555554444', '4111111111111111', '5105105105105100'];

async function fiveTokens() {
  const sim = testSimulator({ frozen: true, users: ['bob:bob-pw'] });
  for (const [i, cardNumber] of CARDS.entries()) {
    const api = i % 2 === 0 ? client(sim) : client(sim, 'bob', 'bob-pw');
    expect((await api.create(createBody({ cardNumber }))).status).toBe(201);
    sim.clock.advance(1000);
  }
  return sim;
}

type Page = { tokens: { tenant: string; tokenId: string; paymentInstrument: { cardNumber: string } }[]; next: string | null };
const page = async (sim: ReturnType<typeof testSimulator>, query: string): Promise<Page> => {
  const res = await request(handlerOf(sim)).get(`/_sim/tokens${query}`);
  expect(res.status).toBe(200);
  return res.body as Page;
};
const lastFour = (p: Page) => p.tokens.map((t) => t.paymentInstrument.cardNumber.slice(-4));

describe('GET /_sim/tokens pages', () => {
  it('answers every token and next: null when one page holds them', async () => {
    const all = await page(await fiveTokens(), '');
    expect([lastFour(all), all.next]).toEqual([['1111', '1881', '4444', '1111', '5100'], null]);
  });

  it('pages through every tenant in creation order with limit and cursor', async () => {
    const sim = await fiveTokens();
    const first = await page(sim, '?limit=2');
    const second = await page(sim, `?limit=2&cursor=${first.next}`);
    const third = await page(sim, `?limit=2&cursor=${second.next}`);
    expect([lastFour(first), lastFour(second), lastFour(third), third.next]).toEqual([['1111', '1881'], ['4444', '1111'], ['5100'], null]);
    expect(first.next).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("pages one tenant's tokens", async () => {
    const sim = await fiveTokens();
    const first = await page(sim, '?tenant=bob&limit=1');
    const second = await page(sim, `?tenant=bob&limit=1&cursor=${first.next}`);
    expect([first.tokens[0]?.tenant, lastFour(first), lastFour(second), second.next]).toEqual(['bob', ['1881'], ['1111'], null]);
  });

  it('neither skips nor repeats a token when tokens are deleted between pages', async () => {
    const sim = await fiveTokens();
    const first = await page(sim, '?limit=2');
    // The last token of the first page goes: the next page still starts after it.
    const gone = first.tokens[1]!;
    sim.reset('bob');
    expect(gone.tenant).toBe('bob');
    const rest = await page(sim, `?cursor=${first.next}`);
    expect(lastFour(rest)).toEqual(['4444', '5100']);
  });

  it.each([['?limit=10001'], ['?limit=-1'], ['?limit=x'], ['?cursor=***'], ['?cursor=bm90LWpzb24'], ['?cursor=WzEsMl0'], ['?limit=1&limit=2'], ['?lmit=2']])('refuses %s', async (query) => {
    const res = await request(handlerOf(testSimulator())).get(`/_sim/tokens${query}`);
    expect([res.status, res.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
  });
});

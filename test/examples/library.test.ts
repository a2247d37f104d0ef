/**
 * Example: a client test suite using token-sim in-process. startSimulator in beforeAll, a real HTTP client
 * (fetch), and the virtual clock moved across a token's expiry.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSimulator, type RunningSimulator } from '../../src/index.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const headers = { Authorization: AUTH, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE };

describe('a payment client against startSimulator()', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 'example', now: '2030-01-01T00:00:00Z', frozen: true });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  async function tokenize(): Promise<{ status: number; href: string; expiry: string }> {
    const res = await fetch(`${sim.url}/tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        paymentInstrument: { type: 'card/front', cardHolderName: 'Ada Lovelace', cardNumber: '4444333322221111', cardExpiryDate: { month: 12, year: 2035 } },
        merchant: { entity: 'default' },
      }),
    });
    const body = (await res.json()) as { tokenPaymentInstrument: { href: string }; tokenExpiryDateTime: string };
    return { status: res.status, href: body.tokenPaymentInstrument.href, expiry: body.tokenExpiryDateTime };
  }

  it('resolves with the URL it listens on', async () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${sim.url}/_sim/health`)).status).toBe(200);
  });

  it('sees a token expire after 7 days of virtual time', async () => {
    const { status, href, expiry } = await tokenize();
    expect(status).toBe(201);
    expect(expiry).toBe('2030-01-08T00:00:00Z');
    expect((await fetch(href, { headers })).status).toBe(200);
    sim.clock.advance('P8D');
    expect((await fetch(href, { headers })).status).toBe(404);
    expect(sim.requests().map((r) => r.status)).toEqual([201, 200, 404]);
  });

  it('starts each test with an empty vault and journal (reset in beforeEach)', async () => {
    expect(sim.requests()).toEqual([]);
    expect(sim.exportState().tokens).toEqual([]);
    expect((await tokenize()).status).toBe(201);
  });

  it('runs independent simulators side by side', async () => {
    const other = await startSimulator({ port: 0, seed: 'example', now: '2030-01-01T00:00:00Z', frozen: true });
    try {
      other.clock.advance('P1D');
      expect(other.clock.now()).not.toBe(sim.clock.now());
      expect(other.url).not.toBe(sim.url);
      expect(other.requests()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('snapshots and restores state', async () => {
    const { href } = await tokenize();
    const snapshot = sim.exportState();
    sim.reset();
    expect((await fetch(href, { headers })).status).toBe(404);
    sim.importState(snapshot);
    expect((await fetch(href, { headers })).status).toBe(200);
    expect(() => sim.importState({ format: 'nope' })).toThrow(/format/);
  });
});

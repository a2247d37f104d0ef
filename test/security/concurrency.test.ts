/** Many requests at once on a real socket: the vault stays consistent. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Agent } from 'node:http';
import { createSimulator, startSimulator, type RunningSimulator } from '../../src/index.js';

const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const headers = { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN, 'Content-Type': TOKEN };
const body = (cardNumber: string, name = 'Ada Lovelace') =>
  JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: name, cardNumber, cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } });

let sim: RunningSimulator;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'concurrency', now: '2030-01-01T00:00:00Z', frozen: true }, { writeErr: () => undefined });
});
// Each test starts from an empty vault: none depends on what another left behind.
beforeEach(() => sim.reset());
afterAll(async () => {
  agent.destroy();
  await sim.close();
});

const post = (b: string) => fetch(`${sim.url}/tokens`, { method: 'POST', headers, body: b });

describe('concurrency', () => {
  it('answers 200 parallel creates of one new card with exactly one 201 and 199 × 200 of the same token', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => post(body('4444333322221111'))));
    const statuses = answers.map((a) => a.status);
    const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { tokenId: string }).tokenId)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(199);
    expect(ids.size).toBe(1);
  });

  it('leaves a token consistent under parallel updates and deletes', async () => {
    const created = (await (await post(body('5555555555554444'))).json()) as { _links: Record<string, { href: string }> };
    const link = (rel: string) => created._links[rel]!.href;
    const updates = Array.from({ length: 100 }, (_, i) =>
      fetch(link(i % 2 ? 'tokens:description' : 'tokens:cardHolderName'), { method: 'PUT', headers, body: JSON.stringify(`value ${i}`) }),
    );
    const deletes = Array.from({ length: 20 }, () => fetch(link('tokens:token'), { method: 'DELETE', headers }));
    const statuses = (await Promise.all([...updates, ...deletes])).map((r) => r.status);
    // Every request is answered as success or "gone"; exactly one delete wins.
    expect(statuses.every((s) => s === 204 || s === 404)).toBe(true);
    expect(statuses.slice(100).filter((s) => s === 204)).toHaveLength(1);
    expect((await fetch(link('tokens:token'), { headers })).status).toBe(404);
    // The card can be tokenized again, as a new token.
    expect((await post(body('5555555555554444'))).status).toBe(201);
  });

  it('exports consistent snapshots taken between answered creates while others are still in flight', async () => {
    const cards = Array.from({ length: 300 }, (_, i) => {
      const prefix = `4000000${String(i).padStart(8, '0')}`;
      for (let d = 0; d <= 9; d++) {
        const n = `${prefix}${d}`;
        let sum = 0;
        for (let k = 0; k < n.length; k++) {
          let v = Number(n[n.length - 1 - k]);
          if (k % 2) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
          sum += v;
        }
        if (sum % 10 === 0) return n;
      }
      throw new Error('unreachable');
    });
    type Snapshot = { tokens: { tokenId: string }[] };
    const snapshots: Promise<{ answeredBefore: number; snapshot: Snapshot }>[] = [];
    let answered = 0;
    const creates = cards.map((c) =>
      post(body(c)).then(async (res) => {
        answered++;
        // Every 40th answer asks for a snapshot, while the creates behind it are still under way.
        if (answered % 40 === 0) {
          const answeredBefore = answered;
          snapshots.push(fetch(`${sim.url}/_sim/state`).then(async (r) => ({ answeredBefore, snapshot: (await r.json()) as Snapshot })));
        }
        return { status: res.status, tokenId: ((await res.json()) as { tokenId: string }).tokenId };
      }),
    );
    const answers = await Promise.all(creates);
    const taken = await Promise.all(snapshots);
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const created = new Set(answers.map((a) => a.tokenId));
    expect(taken.length).toBeGreaterThanOrEqual(5);
    // At least one snapshot is of a moment in the middle: some of the creates, not none and not all.
    expect(taken.some(({ snapshot }) => snapshot.tokens.length > 0 && snapshot.tokens.length < cards.length)).toBe(true);
    for (const { answeredBefore, snapshot } of taken) {
      const ids = snapshot.tokens.map((t) => t.tokenId);
      expect(new Set(ids).size).toBe(ids.length);
      // It holds every token answered before it was asked for, and only tokens that were created.
      expect(ids.length).toBeGreaterThanOrEqual(answeredBefore);
      expect(ids.every((id) => created.has(id))).toBe(true);
      // Each snapshot imports whole into a simulator with the same seed: one moment, not a torn read.
      const copy = createSimulator({ seed: 'concurrency', now: '2030-01-01T00:00:00Z', frozen: true });
      expect(() => copy.importState(snapshot)).not.toThrow();
      expect(copy.exportState().tokens.map((t) => t.tokenId).sort()).toEqual([...ids].sort());
    }
  });
});

/** Snapshots of any size: GET /_sim/state streams, PUT /_sim/state takes up to --state-limit (defect 4 of issue 13). */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator } from '../../src/simulator/compose.js';
import { createBody, client, handlerOf, testSimulator } from '../support/sim.js';
import { luhnCard } from '../support/cards.js';


describe('state snapshots larger than 1 MiB', () => {
  it('round-trips its own export of 3,000 tokens (about 1.3 MiB), which 1 MiB refused', async () => {
    const sim = testSimulator({ seed: 'big', frozen: true });
    const api = client(sim);
    for (let i = 0; i < 3000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => api.create(createBody({ cardNumber: luhnCard(i + j) }))));
    }
    const exported = await request(handlerOf(sim)).get('/_sim/state');
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toBe('application/json');
    expect(exported.text.length).toBeGreaterThan(1024 * 1024);
    expect(exported.body.tokens).toHaveLength(3000);
    // The streamed export holds what the library's export holds (card data masked in free text only).
    expect(exported.body).toEqual(JSON.parse(JSON.stringify(sim.exportState())));

    const copy = testSimulator({ seed: 'big', frozen: true });
    const put = await request(handlerOf(copy)).put('/_sim/state').set('Content-Type', 'application/json').send(exported.text);
    expect(put.status).toBe(204);
    expect(copy.tokens()).toHaveLength(3000);
  }, 30_000);

  it('refuses a snapshot over --state-limit with 413, naming the limit', async () => {
    const sim = testSimulator({ stateLimit: '1MiB' });
    const huge = JSON.stringify({ ...sim.exportState(), padding: 'x'.repeat(1024 * 1024) });
    const res = await request(handlerOf(sim)).put('/_sim/state').set('Content-Type', 'application/json').send(huge);
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('The request body must not exceed 1 MiB');
  });

  it('keeps the 1 MiB limit for every other /_sim body', async () => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/scenarios').set('Content-Type', 'application/json').send(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
  });

  it.each([['1KiB'], ['1GiB'], ['lots'], [-1]])('refuses stateLimit %s', (stateLimit) => {
    expect(() => testSimulator({ stateLimit })).toThrow(/--state-limit must be a size from 1MiB to 512MiB/);
  });

  it.each<[string | number, number]>([['300MB', 300_000_000], ['2 MiB', 2 * 1024 * 1024], [5_000_000, 5_000_000]])('takes stateLimit %s', (stateLimit, bytes) => {
    expect(createSimulator({ stateLimit, log: 'silent' }).config.stateLimit).toBe(bytes);
  });
});

describe('a large invalid snapshot (contract 4.1)', () => {
  it('answers PUT /_sim/state of 5,000 wrong tokens with the first 100 problems and changes nothing', async () => {
    const sim = testSimulator();
    const exported = (await request(handlerOf(sim)).get('/_sim/state')).body as Record<string, unknown>;
    const body = { ...exported, tokens: Array.from({ length: 5_000 }, (_, i) => ({ tokenId: i, extra: true })) };
    const res = await request(handlerOf(sim)).put('/_sim/state').set('Content-Type', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toHaveLength(100);
    expect(res.body.message).toMatch(/more were omitted/);
    expect(res.body.validationErrors[0].jsonPath).toMatch(/^\$\.tokens\[0\]/);
    expect(res.body.validationErrors.every((p: { jsonPath: string }) => /^\$\.tokens\[\d\]/.test(p.jsonPath))).toBe(true);
    expect((await request(handlerOf(sim)).get('/_sim/state')).body).toEqual(exported);
  });
});

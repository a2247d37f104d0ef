/** Load-test realism over HTTP (decision 0037): a chance rule hits a seeded fraction of requests; a uniform delay delays within its range. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

type Sim = ReturnType<typeof testSimulator>;

const FLAKY = { name: 'flaky', rules: [{ id: 'flaky', when: { operation: 'getToken', chance: 0.5 }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };

async function load(sim: Sim, scenario: object, tenant?: string): Promise<void> {
  const res = await request(handlerOf(sim)).put(`/_sim/scenarios${tenant === undefined ? '' : `?tenant=${tenant}`}`).send(scenario);
  expect(res.status).toBe(200);
}

/** A simulator with one token, and a function that reads it n times, giving the statuses as a string of 0 (503) and 1 (200). */
async function reader(seed: string) {
  const sim = testSimulator({ seed });
  const api = client(sim);
  const href = (await createToken(api))['tokens:token'] ?? '';
  const reads = async (n: number): Promise<string> => {
    let out = '';
    for (let i = 0; i < n; i++) {
      const res = await api.get(href);
      expect([200, 503]).toContain(res.status);
      out += res.status === 503 ? '0' : '1';
    }
    return out;
  };
  return { sim, reads, href };
}

describe('a chance rule over HTTP', () => {
  it('answers 503 to about half of 40 reads, the same ones under one seed and others under another', async () => {
    const a = await reader('load-a');
    await load(a.sim, FLAKY);
    const seen = await a.reads(40);
    const failed = [...seen].filter((c) => c === '0').length;
    expect(failed).toBeGreaterThanOrEqual(8);
    expect(failed).toBeLessThanOrEqual(32);

    const again = await reader('load-a');
    await load(again.sim, FLAKY);
    expect(await again.reads(40)).toBe(seen);

    const other = await reader('load-b');
    await load(other.sim, FLAKY);
    expect(await other.reads(40)).not.toBe(seen);
  });

  it('journals the rule on the requests it applied to only', async () => {
    const a = await reader('load-a');
    await load(a.sim, FLAKY);
    const seen = await a.reads(12);
    const reads = a.sim.requests().filter((r) => r.operation === 'getToken');
    expect(reads.map((r) => (r.rule === 'flaky' ? '0' : '1')).join('')).toBe(seen);
  });

  it('refuses a chance out of range with its JSONPath', async () => {
    const res = await request(handlerOf(testSimulator()))
      .put('/_sim/scenarios')
      .send({ name: 'bad', rules: [{ when: { chance: 1.01 }, then: { delayMs: { uniform: [60, 20] } } }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorName: 'bodyDoesNotMatchSchema',
      message: expect.any(String),
      validationErrors: [
        { errorName: 'fieldHasInvalidValue', message: 'chance must be at most 1', jsonPath: '$.rules[0].when.chance' },
        { errorName: 'fieldHasInvalidValue', message: 'uniform must not be below the minimum', jsonPath: '$.rules[0].then.delayMs.uniform[1]' },
      ],
    });
  });

  it('carries the stream positions in a state export, so an import resumes the same draws', async () => {
    const a = await reader('load-a');
    await load(a.sim, FLAKY, 'merchant');
    await a.reads(10);
    const state = a.sim.exportState();
    expect(state.counters.ids['chance:merchant']).toBe(10);
    const next = await a.reads(20);

    const b = testSimulator({ seed: 'load-a' });
    b.importState(state);
    // The imported token, through the href the first simulator gave it (refs are a value of the seed).
    const api = client(b);
    let resumed = '';
    for (let i = 0; i < 20; i++) resumed += (await api.get(a.href)).status === 503 ? '0' : '1';
    expect(resumed).toBe(next);
  });
});

describe('a tenant-scoped state export over HTTP', () => {
  it("carries the tenant's own set with its distributions and its stream positions only, and an import resumes them", async () => {
    const a = await reader('load-a');
    const jittery = { name: 'jittery', rules: [{ id: 'flaky', when: { operation: 'getToken', chance: 0.5 }, then: { delayMs: { uniform: [0, 2] }, error: { status: 503, errorName: 'serviceUnavailable' } } }] };
    await load(a.sim, jittery, 'merchant');
    await a.reads(6);
    const exported = await request(handlerOf(a.sim)).get('/_sim/state?tenant=merchant');
    expect(exported.status).toBe(200);
    const ids = exported.body.counters.ids as Record<string, number>;
    expect(ids['chance:merchant']).toBe(6);
    expect(Object.keys(ids).every((k) => k.endsWith(':merchant'))).toBe(true);
    expect(exported.body.scenarios.merchant[0].rules[0]).toEqual(jittery.rules[0]);
    const next = await a.reads(12);

    const b = testSimulator({ seed: 'load-a' });
    expect((await request(handlerOf(b)).put('/_sim/state?tenant=merchant').set('Content-Type', 'application/json').send(exported.text)).status).toBe(204);
    let resumed = '';
    for (let i = 0; i < 12; i++) resumed += (await client(b).get(a.href)).status === 503 ? '0' : '1';
    expect(resumed).toBe(next);
  });
});

describe('the OpenAPI document', () => {
  it('describes chance and the three delay shapes in the Scenario schema', async () => {
    const doc = (await request(handlerOf(testSimulator())).get('/_sim/openapi.json')).body as {
      components: { schemas: { Scenario: { properties: { rules: { items: { properties: Record<string, { properties: Record<string, unknown> }> } } } } } };
    };
    const rule = doc.components.schemas.Scenario.properties.rules.items.properties;
    expect(rule.when?.properties.chance).toEqual({ type: 'number', minimum: 0, maximum: 1 });
    const delay = rule.then?.properties.delayMs as { anyOf: { type: string; required?: string[] }[] };
    expect(delay.anyOf.map((s) => s.required?.[0] ?? s.type)).toEqual(['integer', 'uniform', 'lognormal']);
  });
});

describe('a uniform delay over HTTP', () => {
  it('holds each answer between min and max milliseconds (20..60, measured loosely)', async () => {
    const sim = testSimulator();
    await load(sim, { name: 'jitter', rules: [{ id: 'jitter', when: { operation: 'createToken' }, then: { delayMs: { uniform: [20, 60] } } }] });
    const api = client(sim);
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await api.create(createBody());
      const took = performance.now() - started;
      expect([200, 201]).toContain(res.status);
      expect(took).toBeGreaterThanOrEqual(18);
      expect(took).toBeLessThan(60 + 1500);
    }
    expect(sim.requests().filter((r) => r.rule === 'jitter')).toHaveLength(5);
  });
});

/**
 * The drain on stop is bounded (issue 13, defect 8): `close()` lets requests in flight finish for at most
 * `drainTimeout` (default PT65S, longer than the longest scripted delay), then cuts what is left.
 */
import { describe, expect, it } from '@jest/globals';
import { resolveConfig } from '../../src/config/options.js';
import { startSimulator } from '../../src/simulator/server.js';
import { createOutcome } from '../support/outcome.js';

const QUIET = { writeErr: (): void => undefined };

describe('the drain on stop', () => {
  it('drains for 65 s by default, and reads drainTimeout as an ISO 8601 duration', () => {
    expect(resolveConfig().drainTimeoutMs).toBe(65_000);
    expect(resolveConfig({ drainTimeout: 'PT1.5S' }).drainTimeoutMs).toBe(1_500);
    expect(resolveConfig({ drainTimeout: 'PT0S' }).drainTimeoutMs).toBe(0);
  });

  it.each(['65', 'PT-1S', 'soon', ''])('refuses drainTimeout %p', (text) => {
    expect(() => resolveConfig({ drainTimeout: text })).toThrow("--drain-timeout must be an ISO 8601 duration such as PT65S, got '" + text + "'");
  });

  it('cuts a request still in a scripted delay once the drain timeout has passed', async () => {
    const sim = await startSimulator({ port: 0, seed: 'd', now: '2030-01-01T00:00:00Z', frozen: true, drainTimeout: 'PT0.5S' }, QUIET);
    sim.loadScenarios({ name: 'slow', rules: [{ when: { operation: 'createToken' }, then: { delayMs: 5_000 } }] });
    const answer = createOutcome(sim.url);
    // The request is in its delay once the scenario rule has counted it.
    const counted = (): boolean =>
      Object.values(sim.exportState().counters.scenarios as unknown as Record<string, { merchant?: { matches: number } }>).some((c) => (c.merchant?.matches ?? 0) > 0);
    while (!counted()) await new Promise((resolve) => setTimeout(resolve, 20));
    const stopping = performance.now();
    await sim.close();
    const took = performance.now() - stopping;
    expect(await answer).toBe('cut');
    expect(took).toBeGreaterThan(400);
    expect(took).toBeLessThan(1_500);
  });

  it('lets a request that ends within the drain timeout finish', async () => {
    const sim = await startSimulator({ port: 0, seed: 'd', now: '2030-01-01T00:00:00Z', frozen: true, drainTimeout: 'PT3S' }, QUIET);
    sim.loadScenarios({ name: 'slow', rules: [{ when: { operation: 'createToken' }, then: { delayMs: 500 } }] });
    const answer = createOutcome(sim.url);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const stopping = performance.now();
    await sim.close();
    expect(await answer).toBe('answered 201');
    expect(performance.now() - stopping).toBeLessThan(1_500);
  });
});

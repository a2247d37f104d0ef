/**
 * The drain on SIGTERM is bounded by --drain-timeout (issue 13, defect 8): a request in a scripted delay longer
 * than it is cut when it passes, and the process still exits 0. A real signal needs a real process.
 */
import { describe, expect, it } from '@jest/globals';
import { listening, run } from '../support/cli.js';
import { tempFile } from '../support/cli-in-process.js';
import { createOutcome } from '../support/outcome.js';

describe('token-sim --drain-timeout', () => {
  it('on SIGTERM cuts a request whose scripted delay outlasts the drain timeout, and exits 0 when it passes', async () => {
    const scenario = tempFile('slow.json', JSON.stringify({ name: 'slow', rules: [{ when: { operation: 'createToken' }, then: { delayMs: 20_000 } }] }));
    const r = run(['--port', '0', '--log', 'silent', '--seed', 'drain', '--now', '2030-01-01T00:00:00Z', '--frozen', '--scenario', scenario, '--drain-timeout', 'PT1S']);
    try {
      const url = await listening(r);
      const answer = createOutcome(url);
      // The request is in its delay once the scenario rule has counted it.
      const arrived = async (): Promise<boolean> => {
        const state = (await (await fetch(`${url}/_sim/state`)).json()) as { counters: { scenarios: Record<string, { merchant?: { matches: number } }> } };
        return Object.values(state.counters.scenarios).some((c) => (c.merchant?.matches ?? 0) > 0);
      };
      while (!(await arrived()));
      const stoppedAt = performance.now();
      expect(r.child.kill('SIGTERM')).toBe(true);
      expect(await r.exited).toBe(0);
      const took = performance.now() - stoppedAt;
      expect(await answer).toBe('cut');
      expect(took).toBeGreaterThan(900);
      expect(took).toBeLessThan(4_000);
    } finally {
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    }
  });
});

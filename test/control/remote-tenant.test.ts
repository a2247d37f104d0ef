/** connectSimulator with a tenant's Basic credentials: that tenant's own control plane (issue 13, decision 0026). */
import { afterEach, describe, expect, it } from '@jest/globals';
import { connectSimulator, startSimulator, type RunningSimulator } from '../../src/index.js';

const running: RunningSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

async function start(): Promise<RunningSimulator> {
  const sim = await startSimulator({ port: 0, seed: 'remote-tenant', now: '2030-01-01T00:00:00Z', frozen: true, users: ['alice:pa', 'bob:pb'], adminToken: 's3cret' });
  running.push(sim);
  return sim;
}

describe('connectSimulator(url, { username, password })', () => {
  it("acts on the tenant's own plane through its handle, and is refused on another tenant's", async () => {
    const sim = await start();
    const alice = connectSimulator(sim.url, { username: 'alice', password: 'pa' });
    expect(await alice.tenant('alice').clock.advance('P1D')).toBe('2030-01-02T00:00:00Z');
    expect(sim.tenant('alice').clock.now()).toBe('2030-01-02T00:00:00Z');
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
    await expect(alice.tenant('bob').reset()).rejects.toMatchObject({ errorName: 'operationIsNotAllowed' });
    // Its export is its own part only.
    const state = await alice.exportState();
    expect(state.tenantClocks).toEqual({ alice: { now: '2030-01-02T00:00:00Z', frozen: true } });
  });

  it('is refused with wrong credentials', async () => {
    const sim = await start();
    const wrong = connectSimulator(sim.url, { username: 'alice', password: 'nope' });
    await expect(wrong.tenant('alice').clock.now()).rejects.toMatchObject({ errorName: 'accessDenied' });
  });
});

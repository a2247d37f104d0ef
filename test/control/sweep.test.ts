/**
 * Expired tokens are swept when the clock moves and periodically, so memory comes back (issue 13, defect 7).
 * Expiry is read-time (a request never sees an expired token); these count what the store still holds.
 */
import { describe, expect, it } from '@jest/globals';
import { createSimulator } from '../../src/simulator/compose.js';
import type { ComposedSimulator } from '../../src/simulator/compose.js';
import { startSimulator } from '../../src/simulator/server.js';

const QUIET = { writeErr: (): void => undefined };

function simulator(): ComposedSimulator {
  return createSimulator({ seed: 'sweep', now: '2030-01-01T00:00:00Z', frozen: true, users: ['alice:a', 'bob:b'] }, QUIET);
}

/** Creates `n` tokens for the tenant (lifetime: the try profile's 7 days), each on its own card. */
function createTokens(sim: ComposedSimulator, tenant: string, n: number, namespace?: string, first = 0): void {
  for (let i = first; i < first + n; i++) {
    sim.vault.create(tenant, {
      entity: 'default',
      ...(namespace !== undefined && { namespace }),
      card: { number: `44443333${String(i).padStart(8, '0')}`, holderName: 'A', expiryDate: { month: 1, year: 2031 } },
    });
  }
}

describe('sweeping expired tokens', () => {
  it('frees every expired token when the shared clock advances past their expiry', () => {
    const sim = simulator();
    createTokens(sim, 'alice', 50);
    createTokens(sim, 'bob', 30);
    expect(sim.storedTokens()).toBe(80);
    sim.clock.advance('P6D');
    expect(sim.storedTokens()).toBe(80);
    sim.clock.advance('P1D');
    expect(sim.storedTokens()).toBe(0);
  });

  it('frees them when the clock is set past their expiry', () => {
    const sim = simulator();
    createTokens(sim, 'alice', 10);
    sim.clock.set('2030-02-01T00:00:00Z');
    expect(sim.storedTokens()).toBe(0);
  });

  it('keeps a token whose use extended it, and frees it once the extended expiry passes', () => {
    const sim = simulator();
    createTokens(sim, 'alice', 2);
    const [used] = sim.tokens('alice');
    sim.clock.advance('P4D');
    sim.vault.get('alice', used!.tokenId); // past half its life: extended by 7 days, to 2030-01-15
    sim.clock.advance('P3D');
    expect(sim.storedTokens()).toBe(1);
    expect(sim.tokens('alice').map((t) => t.tokenId)).toEqual([used!.tokenId]);
    sim.clock.advance('P7D');
    expect(sim.storedTokens()).toBe(0);
  });

  it("sweeps by each tenant's own clock: a tenant advance frees only that tenant's tokens", () => {
    const sim = simulator();
    createTokens(sim, 'alice', 5);
    createTokens(sim, 'bob', 7);
    sim.tenant('alice').clock.advance('P8D');
    expect(sim.storedTokens()).toBe(7);
    expect(sim.tenant('bob').tokens()).toHaveLength(7);
  });

  it('leaves a tenant with a clock of its own alone when the shared clock moves', () => {
    const sim = simulator();
    createTokens(sim, 'alice', 5);
    createTokens(sim, 'bob', 7);
    sim.tenant('alice').clock.set('2030-01-01T00:00:00Z');
    sim.clock.advance('P8D');
    expect(sim.storedTokens()).toBe(5);
    expect(sim.tenant('alice').tokens()).toHaveLength(5);
  });

  it('keeps namespaces, snapshots and lists consistent: a full namespace is free again, and nothing expired is exported', () => {
    const sim = simulator();
    createTokens(sim, 'alice', 16, 'shopper');
    expect(() => createTokens(sim, 'alice', 1, 'shopper', 16)).toThrow(/already holds 16 tokens/);
    sim.clock.advance('P8D');
    expect(sim.storedTokens()).toBe(0);
    expect(sim.exportState().tokens).toEqual([]);
    createTokens(sim, 'alice', 16, 'shopper', 100);
    expect(sim.storedTokens()).toBe(16);
    expect(sim.tokens('alice')).toHaveLength(16);
  });

  it('does not let a deleted and recreated token id be swept by its old expiry', () => {
    const sim = simulator();
    sim.vault.create('alice', { tokenId: '9900000000000000001', entity: 'default', card: { number: '4444333322221111', holderName: 'A', expiryDate: { month: 1, year: 2031 } } });
    sim.clock.advance('P1D');
    sim.vault.delete('alice', '9900000000000000001');
    sim.vault.create('alice', { tokenId: '9900000000000000001', entity: 'default', card: { number: '4444333322221111', holderName: 'A', expiryDate: { month: 1, year: 2031 } } });
    sim.clock.advance('P6D'); // the first token's expiry, not the second's
    expect(sim.storedTokens()).toBe(1);
    expect(sim.tokens('alice').map((t) => t.tokenId)).toEqual(['9900000000000000001']);
  });

  it('sweeps periodically while a server runs, with no request and no clock call', async () => {
    // Following real time with a 300 ms lifetime; the server sweeps every 50 ms here (every 60 s by default).
    const sim = await startSimulator({ port: 0, seed: 'sweep', tokenLifetime: 'PT0.3S' }, QUIET, {
      headersMs: 10_000,
      requestMs: 30_000,
      keepAliveMs: 5_000,
      checkEveryMs: 500,
      sweepEveryMs: 50,
    });
    try {
      createTokens(sim, 'merchant', 20);
      expect(sim.storedTokens()).toBe(20);
      const deadline = performance.now() + 3_000;
      while (sim.storedTokens() > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sim.storedTokens()).toBe(0);
    } finally {
      await sim.close();
    }
  });
});

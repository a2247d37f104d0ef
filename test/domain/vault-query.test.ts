/** The vault's token queries (contract 3.3, decision 0031): by namespace across entities, by id, both; never a use. */
import { describe, expect, it } from '@jest/globals';
import { createBinTable } from '../../src/domain/card.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { createVault, type CreateTokenInput, type VaultDeps } from '../../src/domain/vault.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2030, 0, 1);
const week = parseDuration('P7D') as Duration;

function setup() {
  let now = T0;
  let next = 0;
  const store = createMemoryStore();
  // Only the token ids matter here; the other id sources are never called by these tests.
  const ids = { tokenId: () => `99${String(++next).padStart(17, '0')}` } as unknown as VaultDeps['ids'];
  const vault = createVault({
    clock: { now: () => now },
    ids,
    store,
    binTable: createBinTable([{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }]),
    policy: { conflictWindowMs: 30 * 60_000, namespaceLimit: 16 },
    profiles: { current: () => ({ lifetime: week, extension: week }) },
    merchants: { entityFor: (_tenant, entity) => (['default', 'second'].includes(entity) ? { currencies: new Set(['GBP']), networks: new Set(['VISA']) } : undefined) },
  });
  return { vault, store, advance: (ms: number) => (now += ms) };
}

const card = (number: string): CreateTokenInput['card'] => ({ number, holderName: 'Sherlock Holmes', expiryDate: { month: 5, year: 2035 } });
const input = (number: string, namespace?: string, entity = 'default'): CreateTokenInput => ({ entity, ...(namespace !== undefined && { namespace }), card: card(number) });

describe('querying the vault by namespace', () => {
  it('finds the live tokens of the namespace under every entity of the tenant, oldest first', () => {
    const { vault, advance } = setup();
    const a = vault.create('t1', input('4444333322221111', 'shopper')).token;
    advance(HOUR);
    const b = vault.create('t1', input('4111111111111111', 'shopper', 'second')).token;
    advance(HOUR);
    vault.create('t1', input('4012888888881881', 'another'));
    vault.create('t1', input('4000056655665556'));
    vault.create('t2', input('4242424242424242', 'shopper'));
    const c = vault.create('t1', input('4444333322221111', 'shopper', 'second')).token;
    expect(vault.query('t1', { namespace: 'shopper' }).map((t) => t.tokenId)).toEqual([a.tokenId, b.tokenId, c.tokenId]);
    expect(vault.query('t2', { namespace: 'shopper' })).toHaveLength(1);
    expect(vault.query('t1', { namespace: 'nobody' })).toEqual([]);
    expect(vault.query('t1', {})).toEqual([]);
  });

  it('leaves out deleted and expired tokens', () => {
    const { vault, advance } = setup();
    const gone = vault.create('t1', input('4444333322221111', 'shopper')).token;
    advance(DAY);
    const kept = vault.create('t1', input('4111111111111111', 'shopper')).token;
    const deleted = vault.create('t1', input('4012888888881881', 'shopper')).token;
    vault.delete('t1', deleted.tokenId);
    advance(6 * DAY);
    expect(vault.query('t1', { namespace: 'shopper' }).map((t) => t.tokenId)).toEqual([kept.tokenId]);
    expect(gone.expiresAt).toBe(T0 + 7 * DAY);
  });

  it('orders by creation time even when the store holds the tokens in another order (a state import)', () => {
    const { vault, store, advance } = setup();
    const first = vault.create('t1', input('4444333322221111', 'shopper')).token;
    advance(HOUR);
    const second = vault.create('t1', input('4111111111111111', 'shopper')).token;
    store.replaceAll([second, first]);
    expect(vault.query('t1', { namespace: 'shopper' }).map((t) => t.tokenId)).toEqual([first.tokenId, second.tokenId]);
  });
});

describe('querying the vault by token id', () => {
  it('finds the live token, and nothing for an unknown, deleted or other tenant’s id', () => {
    const { vault } = setup();
    const token = vault.create('t1', input('4444333322221111', 'shopper')).token;
    const deleted = vault.create('t1', input('4111111111111111')).token;
    vault.delete('t1', deleted.tokenId);
    expect(vault.query('t1', { tokenId: token.tokenId })).toEqual([token]);
    expect(vault.query('t1', { tokenId: deleted.tokenId })).toEqual([]);
    expect(vault.query('t1', { tokenId: '9999999999999999999' })).toEqual([]);
    expect(vault.query('t2', { tokenId: token.tokenId })).toEqual([]);
  });

  it('with a namespace too, finds the token only when it is in that namespace', () => {
    const { vault } = setup();
    const token = vault.create('t1', input('4444333322221111', 'shopper')).token;
    const plain = vault.create('t1', input('4111111111111111')).token;
    expect(vault.query('t1', { tokenId: token.tokenId, namespace: 'shopper' })).toEqual([token]);
    expect(vault.query('t1', { tokenId: token.tokenId, namespace: 'other' })).toEqual([]);
    expect(vault.query('t1', { tokenId: plain.tokenId, namespace: 'shopper' })).toEqual([]);
  });
});

describe('a query is not a use', () => {
  it('moves no expiry, where a get past the half-life extends it', () => {
    const { vault, advance } = setup();
    const token = vault.create('t1', input('4444333322221111', 'shopper')).token;
    advance(5 * DAY);
    vault.query('t1', { namespace: 'shopper' });
    vault.query('t1', { tokenId: token.tokenId });
    expect(token.expiresAt).toBe(T0 + 7 * DAY);
    vault.get('t1', token.tokenId);
    expect(token.expiresAt).toBe(T0 + 14 * DAY);
  });
});

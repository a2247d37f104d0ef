/**
 * Decision 0050: a stored token or payment changes only through its store (insert, update, remove, put), so a
 * shared store sees every change without the domain having to say so; and a read that changes nothing writes
 * nothing (with a shared store, a write turns a cheap read check into a commit).
 */
import { describe, expect, it } from '@jest/globals';
import { createBinTable } from '../../src/domain/card.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import type { PaymentStore, Store } from '../../src/domain/ports.js';
import { createPayments } from '../../src/domain/payments.js';
import { createVault } from '../../src/domain/vault.js';
import { createMemoryPaymentStore } from '../../src/store/memory-payments.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);
const days = (text: string): Duration => parseDuration(text) as Duration;
const ids = {
  tokenId: () => '9900000000000000001',
  authorizationCode: () => 'AUTH01',
  schemeReference: () => 'SCHEME',
  paymentAccountReference: (n: string) => n.padEnd(29, '0'),
  paymentId: () => '9900000000000000002',
  eventId: () => 'event',
};

/** A store that writes down each of its write calls, by name and id. */
function recording<S extends Store | PaymentStore>(store: S, writes: string[]): S {
  const original = store as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...original };
  for (const name of ['insert', 'update', 'remove', 'put']) {
    const call = original[name];
    if (typeof call !== 'function') continue;
    out[name] = (...args: unknown[]) => {
      const first = args[0] as { tokenId?: string; paymentId?: string } | string;
      writes.push(`${name} ${typeof first === 'string' ? String(args[1]) : (first.tokenId ?? first.paymentId)}`);
      return (call as (...a: unknown[]) => unknown)(...args);
    };
  }
  return out as unknown as S;
}

function vaultSetup() {
  let now = T0;
  const writes: string[] = [];
  const store = recording(createMemoryStore(), writes);
  const vault = createVault({
    clock: { now: () => now },
    ids,
    store,
    binTable: createBinTable([{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }]),
    policy: { conflictWindowMs: 30 * 60_000, namespaceLimit: 16 },
    profiles: { current: () => ({ lifetime: days('P7D'), extension: days('P7D') }) },
    merchants: { entityFor: () => ({ currencies: new Set(['GBP']), networks: new Set(['VISA']) }) },
  });
  const card = { number: '4444333322221111', holderName: 'Sherlock Holmes', expiryDate: { month: 5, year: 2035 } };
  return { vault, writes, card, store, advance: (ms: number) => (now += ms) };
}

describe('the vault changes tokens through its store only', () => {
  it('writes nothing on a read before the half-life, and one update when a use extends the expiry', () => {
    const { vault, writes, card, store, advance } = vaultSetup();
    const { token } = vault.create('t1', { entity: 'default', card });
    expect(writes).toEqual(['insert 9900000000000000001']);
    vault.get('t1', token.tokenId);
    vault.peek('t1', token.tokenId);
    vault.query('t1', { tokenId: token.tokenId });
    expect(writes).toHaveLength(1);
    advance(4 * DAY);
    expect(vault.get('t1', token.tokenId).expiresAt).toBe(T0 + 14 * DAY);
    expect(writes).toEqual(['insert 9900000000000000001', 'update 9900000000000000001']);
    expect(store.get('t1', token.tokenId)?.expiresAt).toBe(T0 + 14 * DAY);
  });

  it('writes the same card again with other values (a conflict), its resolution and each field update as updates', () => {
    const { vault, writes, card, store } = vaultSetup();
    const { token } = vault.create('t1', { entity: 'default', card });
    vault.create('t1', { entity: 'default', card });
    expect(writes).toHaveLength(1);
    expect(vault.create('t1', { entity: 'default', card: { ...card, holderName: 'John Watson' } }).outcome).toBe('conflict');
    vault.resolveConflict('t1', token.tokenId);
    vault.update('t1', token.tokenId, { field: 'description', value: 'mine' });
    expect(writes.slice(1)).toEqual(['update 9900000000000000001', 'update 9900000000000000001', 'update 9900000000000000001']);
    expect(store.get('t1', token.tokenId)).toMatchObject({ description: 'mine', card: { holderName: 'John Watson' }, revision: 4 });
    vault.delete('t1', token.tokenId);
    expect(writes.at(-1)).toBe('remove 9900000000000000001');
  });
});

describe('the payments change through their store only', () => {
  function paymentsSetup() {
    let now = T0;
    const writes: string[] = [];
    const store = recording(createMemoryPaymentStore(), writes);
    const payments = createPayments({ clock: { now: () => now }, ids, store, settlementDelay: days('P1D') });
    const id = payments.record('t1', { transactionReference: 'o-1', entity: 'default', currency: 'GBP', amount: 1000, approved: true, script: { refundFailure: { code: '57', description: 'NO' } } }).paymentId;
    return { payments, writes, store, id, advance: (ms: number) => (now += ms) };
  }

  it('writes nothing on a read or a catch-up with nothing due, and one update for each read that catches up', () => {
    const { payments, writes, id, advance } = paymentsSetup();
    expect(writes).toEqual(['put 9900000000000000002']);
    payments.get('t1', id);
    expect(payments.catchUp('t1')).toBe(0);
    expect(writes).toHaveLength(1);
    advance(DAY);
    expect(payments.get('t1', id).settlement).toBe('settled');
    expect(writes).toEqual(['put 9900000000000000002', 'update 9900000000000000002']);
    payments.get('t1', id);
    expect(writes).toHaveLength(2);
  });

  it('writes a refund as an update, and the store sees the failure it schedules: a clock move catches it up', () => {
    const { payments, writes, store, id, advance } = paymentsSetup();
    advance(DAY);
    expect(payments.catchUp('t1')).toBe(1);
    payments.partialRefund('t1', id, { amount: 100, currency: 'GBP', reference: 'r-1' });
    expect(writes).toEqual(['put 9900000000000000002', 'update 9900000000000000002', 'update 9900000000000000002']);
    expect(store.due('t1', T0 + 2 * DAY - 1)).toEqual([]);
    advance(DAY);
    expect(payments.catchUp('t1')).toBe(1);
    expect(store.get('t1', id)?.refunded).toBe(0);
    expect(writes).toHaveLength(4);
  });
});

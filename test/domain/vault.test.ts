import { describe, expect, it } from '@jest/globals';
import { createBinTable } from '../../src/domain/card.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { DomainError } from '../../src/domain/errors.js';
import { codeOf } from '../support/domain.js';
import type { Token } from '../../src/domain/token.js';
import { createVault, type CreateTokenInput } from '../../src/domain/vault.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);
const days = (text: string): Duration => parseDuration(text) as Duration;

function setup(options: { lifetime?: string; extension?: string } = {}) {
  let now = T0;
  let next = 0;
  const vault = createVault({
    clock: { now: () => now },
    ids: {
      tokenId: () => `99${String(++next).padStart(17, '0')}`,
      authorizationCode: () => 'AUTH01',
      schemeReference: () => 'SCHEME',
      paymentAccountReference: (n) => n.padEnd(29, '0'),
      paymentId: () => '9900000000000000001',
      eventId: () => 'event',
    },
    store: createMemoryStore(),
    binTable: createBinTable([{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }]),
    policy: { conflictWindowMs: 30 * 60_000, namespaceLimit: 16 },
    profiles: { current: () => ({ lifetime: days(options.lifetime ?? 'P7D'), extension: days(options.extension ?? 'P7D') }) },
    merchants: { entityFor: (_tenant, entity) => (entity === 'default' ? { currencies: new Set(['GBP']), networks: new Set(['VISA']) } : undefined) },
  });
  return { vault, advance: (ms: number) => (now += ms), at: (ms: number) => (now = ms), now: () => now };
}

const input = (overrides: Partial<CreateTokenInput> = {}, card: Partial<CreateTokenInput['card']> = {}): CreateTokenInput => ({
  entity: 'default',
  ...overrides,
  card: { number: '4444333322221111', holderName: 'Sherlock Holmes', expiryDate: { month: 5, year: 2035 }, ...card },
});


describe('creating a token', () => {
  it('creates a token that expires after the profile lifetime, with the default description', () => {
    const { vault } = setup();
    const { outcome, token } = vault.create('t1', input());
    expect(outcome).toBe('created');
    expect(token).toMatchObject({ tokenId: '9900000000000000001', description: 'Card ending 1111', expiresAt: T0 + 7 * DAY });
    expect(token.lifetimeMs).toBe(7 * DAY);
    expect(token.card).toMatchObject({ network: 'VISA', countryCode: 'GB', fundingType: 'credit' });
  });

  it('returns the existing token for the same card and data', () => {
    const { vault } = setup();
    const first = vault.create('t1', input()).token;
    const again = vault.create('t1', input({ description: 'other', expiresAt: T0 + DAY }));
    expect(again.outcome).toBe('existing');
    expect(again.token.tokenId).toBe(first.tokenId);
    expect(again.token.description).toBe('Card ending 1111');
    expect(again.token.expiresAt).toBe(T0 + 7 * DAY);
  });

  it('keeps a stored billing address when the request carries none', () => {
    const { vault } = setup();
    const address = { address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' };
    vault.create('t1', input({}, { billingAddress: address }));
    const again = vault.create('t1', input());
    expect(again.outcome).toBe('existing');
    expect(again.token.card.billingAddress).toEqual(address);
  });

  it.each([
    ['card holder name', {}, { holderName: 'John Watson' }, { cardHolderName: 'John Watson' }],
    ['expiry month', {}, { expiryDate: { month: 6, year: 2035 } }, { cardExpiryDate: { month: 6, year: 2035 } }],
    ['expiry year', {}, { expiryDate: { month: 5, year: 2036 } }, { cardExpiryDate: { month: 5, year: 2036 } }],
    [
      'billing address',
      {},
      { billingAddress: { address1: '2 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' } },
      { billingAddress: { address1: '2 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' } },
    ],
    ['scheme transaction reference', { schemeTransactionReference: 'XYZ 2' }, {}, { schemeTransactionReference: 'XYZ 2' }],
  ] as const)('reports a conflict on a different %s and keeps the stored data', (_name, top, card, expected) => {
    const { vault } = setup();
    const stored = vault.create('t1', input({ schemeTransactionReference: 'XYZ 1' }, {
      billingAddress: { address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' },
    })).token;
    const before = structuredClone(stored.card);
    const result = vault.create('t1', input({ schemeTransactionReference: 'XYZ 1', ...top }, {
      billingAddress: { address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' },
      ...card,
    }));
    expect(result.outcome).toBe('conflict');
    expect(result.token.pendingConflict?.values).toEqual(expected);
    expect(result.token.pendingConflict?.expiresAt).toBe(T0 + 30 * 60_000);
    expect(result.token.card).toEqual(before);
    expect(result.token.schemeTransactionReference).toBe('XYZ 1');
  });

  it('does not conflict on a scheme transaction reference the request leaves out', () => {
    const { vault } = setup();
    vault.create('t1', input({ schemeTransactionReference: 'XYZ 1' }));
    expect(vault.create('t1', input()).outcome).toBe('existing');
  });

  it('treats the same card in another namespace, entity-scoped tenant or tenant as another token', () => {
    const { vault } = setup();
    const a = vault.create('t1', input()).token;
    const b = vault.create('t1', input({ namespace: 'n1' })).token;
    const c = vault.create('t2', input()).token;
    expect(new Set([a.tokenId, b.tokenId, c.tokenId]).size).toBe(3);
  });

  it('refuses an entity the tenant is not configured for', () => {
    const { vault } = setup();
    expect(codeOf(() => vault.create('t1', input({ entity: 'other' })))).toBe('entityNotConfigured');
  });

  it('refuses an expiry that is not in the future', () => {
    const { vault } = setup();
    expect(codeOf(() => vault.create('t1', input({ expiresAt: T0 })))).toBe('expiryNotInFuture');
  });

  it('uses a requested expiry as the token lifetime', () => {
    const { vault } = setup();
    const { token } = vault.create('t1', input({ expiresAt: T0 + 2 * DAY }));
    expect(token.expiresAt).toBe(T0 + 2 * DAY);
    expect(token.lifetimeMs).toBe(2 * DAY);
  });
});

describe('the namespace limit', () => {
  const card = (i: number): string => {
    // 16-digit Visa-like numbers; Luhn is the HTTP layer's rule, not the vault's.
    return `4000000000000${String(i).padStart(3, '0')}`;
  };

  it('allows 16 live tokens per namespace and refuses the 17th', () => {
    const { vault } = setup();
    for (let i = 0; i < 16; i++) vault.create('t1', input({ namespace: 'n' }, { number: card(i) }));
    expect(codeOf(() => vault.create('t1', input({ namespace: 'n' }, { number: card(16) })))).toBe('namespaceFull');
    // Another namespace, and the same namespace in another tenant, are separate groups.
    expect(vault.create('t1', input({ namespace: 'm' }, { number: card(16) })).outcome).toBe('created');
    expect(vault.create('t2', input({ namespace: 'n' }, { number: card(16) })).outcome).toBe('created');
  });

  it('still answers an existing card of a full namespace', () => {
    const { vault } = setup();
    for (let i = 0; i < 16; i++) vault.create('t1', input({ namespace: 'n' }, { number: card(i) }));
    expect(vault.create('t1', input({ namespace: 'n' }, { number: card(3) })).outcome).toBe('existing');
  });

  it('frees a slot when a token is deleted or expires', () => {
    const { vault, advance } = setup();
    const tokens = [];
    for (let i = 0; i < 15; i++) tokens.push(vault.create('t1', input({ namespace: 'n' }, { number: card(i) })).token);
    vault.create('t1', input({ namespace: 'n', expiresAt: T0 + DAY }, { number: card(15) }));
    vault.delete('t1', tokens[0]!.tokenId);
    expect(vault.create('t1', input({ namespace: 'n' }, { number: card(16) })).outcome).toBe('created');
    expect(codeOf(() => vault.create('t1', input({ namespace: 'n' }, { number: card(17) })))).toBe('namespaceFull');
    advance(DAY);
    expect(vault.create('t1', input({ namespace: 'n' }, { number: card(17) })).outcome).toBe('created');
  });
});

describe('expiry and the half-life extension', () => {
  it('does not extend while exactly half of the lifetime remains', () => {
    const { vault, at } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    at(T0 + 3.5 * DAY);
    expect(vault.get('t1', tokenId).expiresAt).toBe(T0 + 7 * DAY);
  });

  it('extends by the extension once less than half remains', () => {
    const { vault, at } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    at(T0 + 3.5 * DAY + 1);
    expect(vault.get('t1', tokenId).expiresAt).toBe(T0 + 14 * DAY);
  });

  it('does not extend again while more than half of the lifetime remains after an extension', () => {
    const { vault, at } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    at(T0 + 4 * DAY);
    vault.get('t1', tokenId);
    at(T0 + 5 * DAY);
    expect(vault.get('t1', tokenId).expiresAt).toBe(T0 + 14 * DAY);
  });

  it('counts updates and conflict resolutions as uses, but not creates', () => {
    const { vault, at } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    at(T0 + 4 * DAY);
    expect(vault.create('t1', input()).token.expiresAt).toBe(T0 + 7 * DAY);
    vault.update('t1', tokenId, { field: 'description', value: 'new' });
    expect(vault.get('t1', tokenId).expiresAt).toBe(T0 + 14 * DAY);
  });

  it('uses the live profile: 4 calendar years, extended by 4 years under half', () => {
    const { vault, at } = setup({ lifetime: 'P4Y', extension: 'P4Y' });
    const { token } = vault.create('t1', input());
    expect(token.expiresAt).toBe(Date.UTC(2034, 0, 1));
    at(Date.UTC(2032, 0, 2));
    expect(vault.get('t1', token.tokenId).expiresAt).toBe(Date.UTC(2038, 0, 1));
  });

  it('makes the token unavailable at its expiry instant, and a new create gives a new token', () => {
    const { vault, at } = setup();
    const first = vault.create('t1', input()).token;
    at(T0 + 7 * DAY - 1);
    expect(codeOf(() => vault.delete('t1', 'nope'))).toBe('tokenNotFound');
    at(T0 + 7 * DAY);
    expect(codeOf(() => vault.get('t1', first.tokenId))).toBe('tokenNotFound');
    expect(codeOf(() => vault.update('t1', first.tokenId, { field: 'description', value: 'x' }))).toBe('tokenNotFound');
    expect(codeOf(() => vault.delete('t1', first.tokenId))).toBe('tokenNotFound');
    const second = vault.create('t1', input());
    expect(second.outcome).toBe('created');
    expect(second.token.tokenId).not.toBe(first.tokenId);
  });
});

describe('conflict resolution', () => {
  it('writes every conflicting value into the token and closes the conflict', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    vault.create('t1', input({ schemeTransactionReference: 'ABC' }, { holderName: 'John Watson', expiryDate: { month: 1, year: 2040 } }));
    vault.resolveConflict('t1', tokenId);
    const token = vault.get('t1', tokenId);
    expect(token.card.holderName).toBe('John Watson');
    expect(token.card.expiryDate).toEqual({ month: 1, year: 2040 });
    expect(token.schemeTransactionReference).toBe('ABC');
    expect(codeOf(() => vault.getConflict('t1', tokenId))).toBe('tokenNotFound');
  });

  it('closes the conflict after 30 minutes', () => {
    const { vault, advance } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    vault.create('t1', input({}, { holderName: 'John Watson' }));
    advance(30 * 60_000 - 1);
    expect(vault.getConflict('t1', tokenId).pendingConflict?.values).toEqual({ cardHolderName: 'John Watson' });
    advance(1);
    expect(codeOf(() => vault.resolveConflict('t1', tokenId))).toBe('tokenNotFound');
  });
});

describe('what the vault says when it refuses', () => {
  function messageOf(fn: () => unknown): string | undefined {
    try {
      fn();
    } catch (err) {
      if (err instanceof DomainError) return err.message;
      throw err;
    }
    return undefined;
  }

  it('names a token that is not there', () => {
    const { vault } = setup();
    expect(messageOf(() => vault.get('t1', '9900000000000000099'))).toBe('The token does not exist, has expired or was deleted');
  });

  it('names the entity, the expiry rule, the namespace and the taken token id', () => {
    const { vault } = setup();
    expect(messageOf(() => vault.create('t1', input({ entity: 'other' })))).toBe("The merchant entity 'other' is not configured for these credentials");
    expect(messageOf(() => vault.create('t1', input({ expiresAt: T0 - 1 })))).toBe('tokenExpiryDateTime must be in the future');
    for (let i = 0; i < 16; i++) vault.create('t1', input({ namespace: 'full' }, { number: `4000000000000${String(i).padStart(3, '0')}` }));
    expect(messageOf(() => vault.create('t1', input({ namespace: 'full' }, { number: '4000000000000999' })))).toBe("The namespace 'full' already holds 16 tokens");
    const { tokenId } = vault.create('t1', input()).token;
    expect(messageOf(() => vault.create('t1', input({ tokenId }, { number: '5555555555554444' })))).toBe(`tokenId ${tokenId} is already in use`);
  });

  it('is a DomainError named DomainError', () => {
    const { vault } = setup();
    let error: unknown;
    try {
      vault.get('t1', 'nope');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as Error).name).toBe('DomainError');
  });
});

describe('token ids', () => {
  it('keeps a fixed token id and refuses it when it is taken, in the same tenant only', () => {
    const { vault } = setup();
    const fixed = '9912345678901234567';
    expect(vault.create('t1', input({ tokenId: fixed })).token.tokenId).toBe(fixed);
    expect(codeOf(() => vault.create('t1', input({ tokenId: fixed }, { number: '5555555555554444' })))).toBe('tokenIdTaken');
    expect(vault.create('t2', input({ tokenId: fixed })).token.tokenId).toBe(fixed);
  });

  it('draws another id when the drawn one is taken', () => {
    const { vault } = setup();
    vault.create('t1', input({ tokenId: '9900000000000000001' }, { number: '5555555555554444' }));
    vault.create('t1', input({ tokenId: '9900000000000000002' }, { number: '378282246310005' }));
    expect(vault.create('t1', input()).token.tokenId).toBe('9900000000000000003');
  });
});

describe('the token a create stores', () => {
  it('keeps the request’s description, scheme transaction reference, namespace and a copy of its billing address', () => {
    const { vault } = setup();
    const address = { address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' };
    const { token } = vault.create('t1', input({ description: 'Mine', schemeTransactionReference: 'XYZ 1', namespace: 'n1' }, { billingAddress: address }));
    expect(token).toMatchObject({ tenant: 't1', entity: 'default', namespace: 'n1', description: 'Mine', schemeTransactionReference: 'XYZ 1', createdAt: T0, revision: 0 });
    expect(token.card).toStrictEqual({
      number: '4444333322221111',
      holderName: 'Sherlock Holmes',
      expiryDate: { month: 5, year: 2035 },
      billingAddress: address,
      network: 'VISA',
      countryCode: 'GB',
      fundingType: 'credit',
    });
    expect(token.card.billingAddress).not.toBe(address);
  });

  it('has no namespace, scheme transaction reference or billing address keys when the request has none', () => {
    const { vault } = setup();
    const { token } = vault.create('t1', input());
    expect('namespace' in token).toBe(false);
    expect('schemeTransactionReference' in token).toBe(false);
    expect('billingAddress' in token.card).toBe(false);
    expect('pendingConflict' in token).toBe(false);
  });

  it('does not count a token without namespace against a namespace called "undefined"', () => {
    const { vault } = setup();
    for (let i = 0; i < 16; i++) vault.create('t1', input({ namespace: 'undefined' }, { number: `4000000000000${String(i).padStart(3, '0')}` }));
    expect(vault.create('t1', input()).outcome).toBe('created');
  });
});

describe('peeking at a token', () => {
  it('shows a live token without using it, and nothing for an unknown or expired one', () => {
    const { vault, at } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    at(T0 + 4 * DAY);
    expect(vault.peek('t1', tokenId)?.tokenId).toBe(tokenId);
    expect(vault.peek('t1', tokenId)?.expiresAt).toBe(T0 + 7 * DAY);
    expect(vault.peek('t1', 'nope')).toBeUndefined();
    expect(vault.peek('t2', tokenId)).toBeUndefined();
    at(T0 + 7 * DAY);
    expect(vault.peek('t1', tokenId)).toBeUndefined();
  });
});

describe('updating a token', () => {
  it.each([
    ['description', 'New', (t: Token) => t.description],
    ['cardHolderName', 'John Watson', (t: Token) => t.card.holderName],
    ['schemeTransactionReference', 'XYZ 9', (t: Token) => t.schemeTransactionReference],
  ] as const)('writes a new %s and nothing else', (field, value, read) => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input({ description: 'Old', schemeTransactionReference: 'XYZ 1' })).token;
    const before = structuredClone(vault.get('t1', tokenId));
    vault.update('t1', tokenId, { field, value });
    const after = vault.get('t1', tokenId);
    expect(read(after)).toBe(value);
    for (const other of ['description', 'schemeTransactionReference'] as const) if (other !== field) expect(after[other]).toBe(before[other]);
    if (field !== 'cardHolderName') expect(after.card.holderName).toBe('Sherlock Holmes');
    expect(after.card.expiryDate).toStrictEqual({ month: 5, year: 2035 });
  });

  it('writes a new card expiry date', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    vault.update('t1', tokenId, { field: 'cardExpiryDate', value: { month: 6, year: 2036 } });
    const token = vault.get('t1', tokenId);
    expect(token.card.expiryDate).toStrictEqual({ month: 6, year: 2036 });
    expect(token.card.holderName).toBe('Sherlock Holmes');
    expect(token.description).toBe('Card ending 1111');
  });

  it('writes a copy of a new billing address', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    const address = { address1: '2 Road', postalCode: 'AB2', city: 'City', countryCode: 'IE' };
    vault.update('t1', tokenId, { field: 'billingAddress', value: address });
    const token = vault.get('t1', tokenId);
    expect(token.card.billingAddress).toStrictEqual(address);
    expect(token.card.billingAddress).not.toBe(address);
    expect(token.card.holderName).toBe('Sherlock Holmes');
  });

  it('counts every update as a change of the stored data', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    const before = vault.get('t1', tokenId).revision;
    vault.update('t1', tokenId, { field: 'description', value: 'New' });
    expect(vault.get('t1', tokenId).revision).toBeGreaterThan(before);
  });
});

describe('resolving a conflict field by field', () => {
  const address = { address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' };

  it('keeps the holder name and billing address exactly as they were when the conflict is only an expiry date', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input({}, { billingAddress: address })).token;
    expect(vault.create('t1', input({}, { expiryDate: { month: 6, year: 2035 } })).outcome).toBe('conflict');
    vault.resolveConflict('t1', tokenId);
    const token = vault.get('t1', tokenId);
    expect(token.card.expiryDate).toStrictEqual({ month: 6, year: 2035 });
    expect(token.card.holderName).toBe('Sherlock Holmes');
    expect(token.card.billingAddress).toStrictEqual({ address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' });
  });

  it('keeps the expiry date and billing address exactly as they were when the conflict is only a holder name', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input({}, { billingAddress: address })).token;
    expect(vault.create('t1', input({}, { holderName: 'John Watson' })).outcome).toBe('conflict');
    vault.resolveConflict('t1', tokenId);
    const token = vault.get('t1', tokenId);
    expect(token.card.holderName).toBe('John Watson');
    expect(token.card.expiryDate).toStrictEqual({ month: 5, year: 2035 });
    expect(token.card.billingAddress).toStrictEqual({ address1: '1 Road', postalCode: 'AB1', city: 'Town', countryCode: 'GB' });
  });

  it('leaves a token without billing address without one', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    vault.create('t1', input({}, { expiryDate: { month: 6, year: 2035 } }));
    vault.resolveConflict('t1', tokenId);
    expect('billingAddress' in vault.get('t1', tokenId).card).toBe(false);
  });

  it('writes a conflicting billing address', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input({}, { billingAddress: address })).token;
    vault.create('t1', input({}, { billingAddress: { ...address, city: 'Bath' } }));
    vault.resolveConflict('t1', tokenId);
    expect(vault.get('t1', tokenId).card.billingAddress).toStrictEqual({ ...address, city: 'Bath' });
  });

  it('counts opening and resolving a conflict as changes of the stored data', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    const created = vault.get('t1', tokenId).revision;
    vault.create('t1', input({}, { holderName: 'John Watson' }));
    const opened = vault.get('t1', tokenId).revision;
    expect(opened).toBeGreaterThan(created);
    vault.resolveConflict('t1', tokenId);
    expect(vault.get('t1', tokenId).revision).toBeGreaterThan(opened);
  });

  it('refuses to resolve a token without a pending conflict', () => {
    const { vault } = setup();
    const { tokenId } = vault.create('t1', input()).token;
    expect(codeOf(() => vault.resolveConflict('t1', tokenId))).toBe('tokenNotFound');
    expect(codeOf(() => vault.getConflict('t1', tokenId))).toBe('tokenNotFound');
  });
});

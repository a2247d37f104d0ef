import { describe, expect, it } from '@jest/globals';
import { createBinTable } from '../../src/domain/card.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { DomainError } from '../../src/domain/errors.js';
import { createVault, type CreateTokenInput } from '../../src/domain/vault.js';
import { createMemoryStore } from '../../src/infra/memory-store.js';

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

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return undefined;
}

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

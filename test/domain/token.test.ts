import { describe, expect, it } from '@jest/globals';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import {
  applyConflictingValues,
  cardIdentity,
  createSharedValues,
  expiryAfterUse,
  findConflicts,
  isExpired,
  namespaceKey,
  sameBillingAddress,
  type BillingAddress,
  type Token,
} from '../../src/domain/token.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);

const token = (overrides: Partial<Token> = {}, card: Partial<Token['card']> = {}): Token => ({
  tenant: 't1',
  tokenId: '9900000000000000001',
  entity: 'default',
  description: 'Card ending 1111',
  card: {
    number: '4444333322221111',
    holderName: 'Sherlock Holmes',
    expiryDate: { month: 5, year: 2035 },
    network: 'VISA',
    countryCode: 'GB',
    fundingType: 'credit',
    ...card,
  },
  createdAt: T0,
  expiresAt: T0 + 7 * DAY,
  lifetimeMs: 7 * DAY,
  extension: parseDuration('P7D') as Duration,
  revision: 0,
  ...overrides,
});

const address = (overrides: Partial<BillingAddress> = {}): BillingAddress => ({
  address1: '221B Baker Street',
  postalCode: 'NW1 6XE',
  city: 'London',
  countryCode: 'GB',
  ...overrides,
});

describe('shared expiry dates', () => {
  it('reads back every month of many years exactly as it was asked for', () => {
    const shared = createSharedValues();
    for (let year = 1990; year <= 2100; year++) {
      for (let month = 1; month <= 12; month++) {
        expect(shared.expiryDate(month, year)).toStrictEqual({ month, year });
      }
    }
    for (let year = 1990; year <= 2100; year++) {
      for (let month = 1; month <= 12; month++) {
        expect(shared.expiryDate(month, year)).toStrictEqual({ month, year });
      }
    }
  });

  it('keeps neighbouring months and years apart: 06/2035 is not 05/2035', () => {
    const shared = createSharedValues();
    expect(shared.expiryDate(5, 2035)).toStrictEqual({ month: 5, year: 2035 });
    expect(shared.expiryDate(6, 2035)).toStrictEqual({ month: 6, year: 2035 });
    expect(shared.expiryDate(5, 2036)).toStrictEqual({ month: 5, year: 2036 });
    expect(shared.expiryDate(12, 2034)).toStrictEqual({ month: 12, year: 2034 });
    expect(shared.expiryDate(1, 2036)).toStrictEqual({ month: 1, year: 2036 });
    expect(shared.expiryDate(5, 2035)).toStrictEqual({ month: 5, year: 2035 });
  });

  it('gives one frozen object per month and year', () => {
    const shared = createSharedValues();
    const first = shared.expiryDate(5, 2035);
    expect(shared.expiryDate(5, 2035)).toBe(first);
    expect(shared.expiryDate(6, 2035)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps each vault’s shared dates to itself', () => {
    expect(createSharedValues().expiryDate(5, 2035)).not.toBe(createSharedValues().expiryDate(5, 2035));
  });

  it('shares up to 50,000 dates; later ones are correct but not shared', () => {
    const shared = createSharedValues();
    const first = shared.expiryDate(1, 1);
    for (let i = 1; i < 50_000; i++) shared.expiryDate((i % 12) + 1, Math.floor(i / 12) + 1);
    expect(shared.expiryDate(1, 1)).toBe(first);
    const late = shared.expiryDate(3, 9999);
    expect(late).toStrictEqual({ month: 3, year: 9999 });
    expect(Object.isFrozen(late)).toBe(true);
    expect(shared.expiryDate(3, 9999)).not.toBe(late);
  });

  it('reads back the months of years so far below zero that their key would round (the wire bounds years only from above)', () => {
    const shared = createSharedValues();
    const year = -600_000_000_000_000;
    for (let month = 1; month <= 12; month++) {
      expect(shared.expiryDate(month, year)).toStrictEqual({ month, year });
    }
    expect(shared.expiryDate(5, year)).toStrictEqual({ month: 5, year });
    expect(Object.isFrozen(shared.expiryDate(5, year))).toBe(true);
  });

  it('shares dates down to the lowest year whose key is exact, and none below it', () => {
    const shared = createSharedValues();
    const lowest = -562_949_953_421_312; // year * 16 is -2^53; adding the month stays a safe integer
    expect(shared.expiryDate(5, lowest)).toBe(shared.expiryDate(5, lowest));
    expect(shared.expiryDate(5, lowest - 1)).not.toBe(shared.expiryDate(5, lowest - 1));
    expect(shared.expiryDate(5, lowest - 1)).toStrictEqual({ month: 5, year: lowest - 1 });
  });
});

describe('shared descriptions', () => {
  it('describes a card by its last four digits', () => {
    const shared = createSharedValues();
    expect(shared.defaultDescription('1111')).toBe('Card ending 1111');
    expect(shared.defaultDescription('0005')).toBe('Card ending 0005');
    expect(shared.defaultDescription('1111')).toBe('Card ending 1111');
  });
});

describe('card identity and namespace keys', () => {
  it('joins entity, namespace (empty when none) and card number with NUL separators', () => {
    expect(cardIdentity('default', undefined, '4444333322221111')).toBe('default\u0000\u00004444333322221111');
    expect(cardIdentity('default', 'n1', '4444333322221111')).toBe('default\u0000n1\u00004444333322221111');
  });

  it('tells apart a card without namespace from one in a namespace called "undefined"', () => {
    expect(cardIdentity('default', undefined, '4444333322221111')).not.toBe(cardIdentity('default', 'undefined', '4444333322221111'));
  });

  it('tells apart every part', () => {
    const base = cardIdentity('e', 'n', '4444333322221111');
    expect(cardIdentity('f', 'n', '4444333322221111')).not.toBe(base);
    expect(cardIdentity('e', 'm', '4444333322221111')).not.toBe(base);
    expect(cardIdentity('e', 'n', '5555555555554444')).not.toBe(base);
    expect(cardIdentity('e', 'n', '4444333322221111')).toBe(base);
  });

  it('keys a namespace by entity and namespace', () => {
    expect(namespaceKey('default', 'n1')).toBe('default\u0000n1');
    expect(namespaceKey('a', 'b\u0000c')).not.toBe(namespaceKey('a\u0000b', 'c\u0000'));
  });
});

describe('billing address comparison', () => {
  it('counts two absent addresses as the same, and an absent one as different from a present one', () => {
    expect(sameBillingAddress(undefined, undefined)).toBe(true);
    expect(sameBillingAddress(undefined, address())).toBe(false);
    expect(sameBillingAddress(address(), undefined)).toBe(false);
  });

  it.each<[string, Partial<BillingAddress>]>([
    ['address1', { address1: '1 Road' }],
    ['address2', { address2: 'Flat 2' }],
    ['address3', { address3: 'Wing 3' }],
    ['postalCode', { postalCode: 'AB1' }],
    ['city', { city: 'Town' }],
    ['state', { state: 'Greater London' }],
    ['countryCode', { countryCode: 'IE' }],
  ])('tells addresses apart by %s', (_field, change) => {
    const full = address({ address2: 'Flat 1', address3: 'Wing 1', state: 'London' });
    expect(sameBillingAddress(full, { ...full, ...change })).toBe(false);
    expect(sameBillingAddress(full, { ...full })).toBe(true);
  });
});

describe('finding conflicts', () => {
  const same = { cardHolderName: 'Sherlock Holmes', cardExpiryDate: { month: 5, year: 2035 } };

  it('finds none when the submitted card matches', () => {
    expect(findConflicts(token(), same)).toBeUndefined();
    expect(findConflicts(token({ schemeTransactionReference: 'A' }, { billingAddress: address() }), { ...same, billingAddress: address(), schemeTransactionReference: 'A' })).toBeUndefined();
  });

  it('ignores a billing address and a scheme transaction reference the request leaves out', () => {
    expect(findConflicts(token({ schemeTransactionReference: 'A' }, { billingAddress: address() }), same)).toBeUndefined();
  });

  it('lists only the values that differ', () => {
    expect(findConflicts(token(), { ...same, cardHolderName: 'John Watson' })).toStrictEqual({ cardHolderName: 'John Watson' });
    expect(findConflicts(token(), { ...same, cardExpiryDate: { month: 6, year: 2035 } })).toStrictEqual({ cardExpiryDate: { month: 6, year: 2035 } });
    expect(findConflicts(token(), { ...same, cardExpiryDate: { month: 5, year: 2036 } })).toStrictEqual({ cardExpiryDate: { month: 5, year: 2036 } });
    expect(findConflicts(token(), { ...same, billingAddress: address() })).toStrictEqual({ billingAddress: address() });
    expect(findConflicts(token(), { ...same, schemeTransactionReference: 'B' })).toStrictEqual({ schemeTransactionReference: 'B' });
  });

  it('lists every value that differs at once, as copies', () => {
    const submitted = { cardHolderName: 'John Watson', cardExpiryDate: { month: 1, year: 2040 }, billingAddress: address(), schemeTransactionReference: 'B' };
    const found = findConflicts(token({ schemeTransactionReference: 'A' }), submitted);
    expect(found).toStrictEqual(submitted);
    expect(found?.cardExpiryDate).not.toBe(submitted.cardExpiryDate);
    expect(found?.billingAddress).not.toBe(submitted.billingAddress);
  });
});

describe('applying conflicting values', () => {
  it('writes a conflict of only an expiry date and keeps holder name and billing address exactly as they were', () => {
    const t = token({}, { billingAddress: address() });
    applyConflictingValues(t, { cardExpiryDate: { month: 1, year: 2040 } }, createSharedValues());
    expect(t.card.expiryDate).toStrictEqual({ month: 1, year: 2040 });
    expect(t.card.holderName).toBe('Sherlock Holmes');
    expect(t.card.billingAddress).toStrictEqual(address());
  });

  it('writes a conflict of only a holder name and keeps expiry date and billing address exactly as they were', () => {
    const t = token({}, { billingAddress: address() });
    applyConflictingValues(t, { cardHolderName: 'John Watson' }, createSharedValues());
    expect(t.card.holderName).toBe('John Watson');
    expect(t.card.expiryDate).toStrictEqual({ month: 5, year: 2035 });
    expect(t.card.billingAddress).toStrictEqual(address());
  });

  it('leaves a token without billing address without one', () => {
    const t = token();
    applyConflictingValues(t, { cardHolderName: 'John Watson' }, createSharedValues());
    expect('billingAddress' in t.card).toBe(false);
    expect('schemeTransactionReference' in t).toBe(false);
  });

  it('keeps the scheme transaction reference when the conflict does not name one', () => {
    const t = token({ schemeTransactionReference: 'A' });
    applyConflictingValues(t, { cardHolderName: 'John Watson' }, createSharedValues());
    expect(t.schemeTransactionReference).toBe('A');
  });

  it('writes every value of a full conflict, the address as a copy and the expiry as the shared date', () => {
    const t = token({ schemeTransactionReference: 'A' }, { billingAddress: address() });
    const shared = createSharedValues();
    const values = { cardHolderName: 'John Watson', cardExpiryDate: { month: 1, year: 2040 }, billingAddress: address({ city: 'Bath' }), schemeTransactionReference: 'B' };
    applyConflictingValues(t, values, shared);
    expect(t.card).toMatchObject({ holderName: 'John Watson', expiryDate: { month: 1, year: 2040 }, billingAddress: address({ city: 'Bath' }) });
    expect(t.schemeTransactionReference).toBe('B');
    expect(t.card.billingAddress).not.toBe(values.billingAddress);
    expect(t.card.expiryDate).toBe(shared.expiryDate(1, 2040));
  });

  it('counts as a change of the stored data', () => {
    const t = token({ revision: 3 });
    applyConflictingValues(t, { cardHolderName: 'John Watson' }, createSharedValues());
    expect(t.revision).toBeGreaterThan(3);
  });
});

describe('token expiry', () => {
  it('is gone at its expiry instant, not before', () => {
    expect(isExpired(token(), T0 + 7 * DAY - 1)).toBe(false);
    expect(isExpired(token(), T0 + 7 * DAY)).toBe(true);
    expect(isExpired(token(), T0 + 8 * DAY)).toBe(true);
  });

  it('extends by the token’s own extension only once less than half of its lifetime remains', () => {
    const t = token({ extension: parseDuration('P1M') as Duration });
    expect(expiryAfterUse(t, T0)).toBe(T0 + 7 * DAY);
    expect(expiryAfterUse(t, T0 + 3.5 * DAY)).toBe(T0 + 7 * DAY);
    expect(expiryAfterUse(t, T0 + 3.5 * DAY + 1)).toBe(Date.UTC(2030, 1, 8));
  });
});

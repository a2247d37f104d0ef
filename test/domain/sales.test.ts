import { describe, expect, it } from '@jest/globals';
import { createBinTable } from '../../src/domain/card.js';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { DomainError } from '../../src/domain/errors.js';
import { decideSale, type SaleCard, type SaleRequest } from '../../src/domain/sale.js';
import { createVault } from '../../src/domain/vault.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);

function setup() {
  let now = T0;
  let next = 0;
  const ids = {
    tokenId: () => `99${String(++next).padStart(17, '0')}`,
    authorizationCode: (tenant: string) => `AUTH-${tenant}`,
    schemeReference: (tenant: string) => `SCHEME-${tenant}`,
    paymentAccountReference: (n: string) => `PAR-${n}`,
    paymentId: () => '9900000000000000001',
    eventId: () => 'event',
  };
  const clock = { now: () => now };
  const binTable = createBinTable([
    { prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' },
    { prefix: '5', network: 'MASTERCARD', countryCode: 'US', fundingType: 'debit' },
  ]);
  const merchants = {
    entityFor: (tenant: string, entity: string) =>
      tenant === 't1' && entity === 'default' ? { currencies: new Set(['GBP', 'EUR']), networks: new Set(['VISA']) } : undefined,
  };
  const days = (text: string): Duration => parseDuration(text) as Duration;
  const vault = createVault({
    clock,
    ids,
    store: createMemoryStore(),
    binTable,
    policy: { conflictWindowMs: 30 * 60_000, namespaceLimit: 16 },
    profiles: { current: () => ({ lifetime: days('P7D'), extension: days('P7D') }) },
    merchants,
  });
  const sales = { clock, ids, vault, merchants, binTable };
  return { vault, sales, at: (ms: number) => (now = ms) };
}

const card = (overrides: Partial<SaleCard> = {}): SaleCard => ({
  number: '4444333322221111',
  holderName: 'Sherlock Holmes',
  expiryDate: { month: 5, year: 2035 },
  ...overrides,
});
const plain = (overrides: Partial<SaleCard> = {}, top: Partial<SaleRequest> = {}): SaleRequest => ({
  entity: 'default',
  currency: 'GBP',
  amount: 250,
  instrument: { kind: 'plain', card: card(overrides) },
  ...top,
});
const byToken = (tokenId: string | undefined, top: Partial<SaleRequest> = {}): SaleRequest => ({
  entity: 'default',
  currency: 'GBP',
  amount: 250,
  instrument: { kind: 'token', tokenId },
  ...top,
});

function refusalOf(fn: () => unknown): { code: string; message: string } | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, message: err.message };
    throw err;
  }
  return undefined;
}

const NOT_SUPPLIED = [
  { risk: 'not_supplied', detail: 'address' },
  { risk: 'not_supplied', detail: 'postcode' },
];

/** What a sale answers about the plain test card (4444333322221111, 05/2035, VISA GB credit). */
const PLAIN_CARD_RESULT = {
  number: '4444333322221111',
  expiryDate: { month: 5, year: 2035 },
  network: 'VISA',
  countryCode: 'GB',
  fundingType: 'credit',
  paymentAccountReference: 'PAR-4444333322221111',
};

describe('a sale with a plain card', () => {
  it('is sent for settlement with an authorization code, the card profile and the risk factors of no address', () => {
    const { sales } = setup();
    expect(decideSale(sales, 't1', plain())).toStrictEqual({
      outcome: 'sentForSettlement',
      authorizationCode: 'AUTH-t1',
      schemeReference: 'SCHEME-t1',
      card: PLAIN_CARD_RESULT,
      riskFactors: NOT_SUPPLIED,
    });
  });

  it('returns a copy of the expiry date, not the request’s object', () => {
    const { sales } = setup();
    const request = plain();
    const result = decideSale(sales, 't1', request);
    expect(result.card.expiryDate).not.toBe((request.instrument as { card: SaleCard }).card.expiryDate);
  });

  it('takes its risk factors from the billing postal code', () => {
    const { sales } = setup();
    const address = { address1: '1 Road', postalCode: 'CCCC', city: 'Town', countryCode: 'GB' };
    expect(decideSale(sales, 't1', plain({ billingAddress: address })).riskFactors).toStrictEqual([{ risk: 'not_matched', detail: 'address' }]);
    expect(decideSale(sales, 't1', plain({ billingAddress: { ...address, postalCode: 'NW1 6XE' } })).riskFactors).toStrictEqual([]);
  });

  it('is refused, without an authorization code, for a REFUSED<n> card holder name', () => {
    const { sales } = setup();
    expect(decideSale(sales, 't1', plain({ holderName: 'REFUSED51' }))).toStrictEqual({
      outcome: 'refused',
      refusal: { code: '51', description: 'LIMIT EXCEEDED' },
      schemeReference: 'SCHEME-t1',
      card: PLAIN_CARD_RESULT,
      riskFactors: NOT_SUPPLIED,
    });
  });

  it('is refused with 33 CARD EXPIRED for an expired card, whatever the card holder name asks', () => {
    const { sales } = setup();
    const expired = { expiryDate: { month: 12, year: 2029 } };
    expect(decideSale(sales, 't1', plain(expired)).refusal).toStrictEqual({ code: '33', description: 'CARD EXPIRED' });
    expect(decideSale(sales, 't1', plain({ ...expired, holderName: 'REFUSED51' })).refusal).toStrictEqual({ code: '33', description: 'CARD EXPIRED' });
    expect(decideSale(sales, 't1', plain(expired)).outcome).toBe('refused');
  });

  it('is approved for a card that expires this month', () => {
    const { sales } = setup();
    expect(decideSale(sales, 't1', plain({ expiryDate: { month: 1, year: 2030 } })).outcome).toBe('sentForSettlement');
  });

  it('fails as issuerFailed for the card holder name ERROR, even with an expired card', () => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', plain({ holderName: 'ERROR' })))).toStrictEqual({
      code: 'issuerFailed',
      message: 'A scripted error (card holder name ERROR)',
    });
    expect(refusalOf(() => decideSale(sales, 't1', plain({ holderName: 'ERROR', expiryDate: { month: 1, year: 2020 } })))?.code).toBe('issuerFailed');
  });
});

describe('what a sale refuses before deciding', () => {
  it('refuses an entity the tenant is not configured for', () => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', plain({}, { entity: 'other' })))).toStrictEqual({
      code: 'entityNotConfigured',
      message: "The merchant entity 'other' is not configured for these credentials",
    });
    expect(refusalOf(() => decideSale(sales, 't2', plain()))?.code).toBe('entityNotConfigured');
  });

  it('refuses a currency the entity does not accept', () => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', plain({}, { currency: 'USD' })))).toStrictEqual({
      code: 'currencyNotAccepted',
      message: 'The currency USD is not configured for the merchant entity',
    });
    expect(decideSale(sales, 't1', plain({}, { currency: 'EUR' })).outcome).toBe('sentForSettlement');
  });

  it('refuses a card network the entity does not accept', () => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', plain({ number: '5555555555554444' })))).toStrictEqual({
      code: 'networkNotAccepted',
      message: 'MASTERCARD cards are not accepted by the merchant entity',
    });
    expect(refusalOf(() => decideSale(sales, 't1', plain({ number: '6011111111111117' })))?.code).toBe('networkNotAccepted');
  });

  it('checks the entity first, then the token, then the currency', () => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', byToken('nope', { entity: 'other', currency: 'USD' })))?.code).toBe('entityNotConfigured');
    expect(refusalOf(() => decideSale(sales, 't1', byToken('nope', { currency: 'USD' })))?.code).toBe('saleTokenNotLive');
  });
});

describe('a sale with a token', () => {
  it('charges the card stored in the live token', () => {
    const { vault, sales } = setup();
    const address = { address1: '1 Road', postalCode: 'FFFF', city: 'Town', countryCode: 'GB' };
    const { tokenId } = vault.create('t1', {
      entity: 'default',
      card: { number: '4444333322221111', holderName: 'REFUSED', expiryDate: { month: 7, year: 2036 }, billingAddress: address },
    }).token;
    const result = decideSale(sales, 't1', byToken(tokenId));
    expect(result.outcome).toBe('refused');
    expect(result.refusal).toStrictEqual({ code: '5', description: 'REFUSED' });
    expect(result.card).toStrictEqual({
      number: '4444333322221111',
      expiryDate: { month: 7, year: 2036 },
      network: 'VISA',
      countryCode: 'GB',
      fundingType: 'credit',
      paymentAccountReference: 'PAR-4444333322221111',
    });
    expect(result.riskFactors).toStrictEqual([{ risk: 'not_matched', detail: 'postcode' }]);
  });

  it('counts as a use of the token: past its half-life the token is extended', () => {
    const { vault, sales, at } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card() }).token;
    at(T0 + 4 * DAY);
    expect(vault.peek('t1', tokenId)?.expiresAt).toBe(T0 + 7 * DAY);
    decideSale(sales, 't1', byToken(tokenId));
    expect(vault.peek('t1', tokenId)?.expiresAt).toBe(T0 + 14 * DAY);
  });

  it('counts as a use even when the sale is refused', () => {
    const { vault, sales, at } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card({ holderName: 'REFUSED51' }) }).token;
    at(T0 + 4 * DAY);
    expect(decideSale(sales, 't1', byToken(tokenId)).outcome).toBe('refused');
    expect(vault.peek('t1', tokenId)?.expiresAt).toBe(T0 + 14 * DAY);
  });

  it('leaves the stored card as it was', () => {
    const { vault, sales } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card() }).token;
    const result = decideSale(sales, 't1', byToken(tokenId));
    result.card.expiryDate.month = 1;
    expect(vault.peek('t1', tokenId)?.card.expiryDate).toStrictEqual({ month: 5, year: 2035 });
  });

  it.each([
    ['no token id', undefined],
    ['an unknown token id', '9900000000000000099'],
  ])('refuses %s as saleTokenNotLive', (_name, tokenId) => {
    const { sales } = setup();
    expect(refusalOf(() => decideSale(sales, 't1', byToken(tokenId)))).toStrictEqual({
      code: 'saleTokenNotLive',
      message: 'href must be the href of a live token of these credentials',
    });
  });

  it('refuses a token of another tenant, and an expired token, as saleTokenNotLive', () => {
    const { vault, sales, at } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card() }).token;
    expect(refusalOf(() => decideSale(sales, 't2', byToken(tokenId)))?.code).toBe('entityNotConfigured');
    at(T0 + 7 * DAY);
    expect(refusalOf(() => decideSale(sales, 't1', byToken(tokenId)))?.code).toBe('saleTokenNotLive');
  });

  it('refuses a token whose stored card has expired as storedCardExpired, not as a refused sale', () => {
    const { vault, sales } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card({ expiryDate: { month: 12, year: 2029 } }) }).token;
    expect(refusalOf(() => decideSale(sales, 't1', byToken(tokenId)))).toStrictEqual({
      code: 'storedCardExpired',
      message: 'The card stored in the token has expired',
    });
  });

  it('charges a stored card that expires this month', () => {
    const { vault, sales } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card({ expiryDate: { month: 1, year: 2030 } }) }).token;
    expect(decideSale(sales, 't1', byToken(tokenId)).outcome).toBe('sentForSettlement');
  });

  it('does not use the token when the sale is refused before it is attempted', () => {
    const { vault, sales, at } = setup();
    const { tokenId } = vault.create('t1', { entity: 'default', card: card() }).token;
    at(T0 + 4 * DAY);
    expect(refusalOf(() => decideSale(sales, 't1', byToken(tokenId, { currency: 'USD' })))?.code).toBe('currencyNotAccepted');
    expect(vault.peek('t1', tokenId)?.expiresAt).toBe(T0 + 7 * DAY);
  });
});

describe('a scripted sale outcome', () => {
  it('approves when it says sentForSettlement, whatever the card holder name asks', () => {
    const { sales } = setup();
    const result = decideSale(sales, 't1', plain({ holderName: 'REFUSED51' }), { outcome: { outcome: 'sentForSettlement' } });
    expect(result.outcome).toBe('sentForSettlement');
    expect(result.authorizationCode).toBe('AUTH-t1');
    expect(result).not.toHaveProperty('refusal');
  });

  it('replaces the scripted ERROR name and the expired-card refusal', () => {
    const { sales } = setup();
    const approve = { outcome: { outcome: 'sentForSettlement' as const } };
    expect(decideSale(sales, 't1', plain({ holderName: 'ERROR' }), approve).outcome).toBe('sentForSettlement');
    expect(decideSale(sales, 't1', plain({ expiryDate: { month: 1, year: 2020 } }), approve).outcome).toBe('sentForSettlement');
  });

  it.each([
    ['a code and a description', { refusalCode: '99', refusalDescription: 'NO WAY' }, { code: '99', description: 'NO WAY' }],
    ['a known code alone', { refusalCode: '41' }, { code: '41', description: 'LOST CARD' }],
    ['an unknown code alone', { refusalCode: '99' }, { code: '99', description: 'REFUSED' }],
    ['a description alone', { refusalDescription: 'NOPE' }, { code: '5', description: 'NOPE' }],
    ['neither', {}, { code: '5', description: 'REFUSED' }],
  ])('refuses with %s', (_name, script, refusal) => {
    const { sales } = setup();
    const result = decideSale(sales, 't1', plain(), { outcome: { outcome: 'refused', ...script } });
    expect(result.outcome).toBe('refused');
    expect(result.refusal).toStrictEqual(refusal);
    expect(result).not.toHaveProperty('authorizationCode');
  });

  it('replaces the risk factors, and keeps the name’s decision when it scripts no outcome', () => {
    const { sales } = setup();
    const riskFactors = [{ risk: 'not_checked' as const, detail: 'postcode' as const }];
    const result = decideSale(sales, 't1', plain({ holderName: 'REFUSED41' }), { riskFactors });
    expect(result.riskFactors).toStrictEqual(riskFactors);
    expect(result.refusal).toStrictEqual({ code: '41', description: 'LOST CARD' });
  });
});

import { describe, expect, it } from '@jest/globals';
import { createBinTable, maskCardNumber, passesLuhn, UNKNOWN_CARD } from '../../src/domain/card.js';
import { loadFixturesFile, DEFAULT_FIXTURES_PATH } from '../../src/config/fixtures.js';

describe('card rules', () => {
  it.each(['4444333322221111', '5555555555554444', '378282246310005', '6011111111111117', '36148900647913'])(
    'accepts the Luhn-valid test card %s',
    (n) => expect(passesLuhn(n)).toBe(true),
  );

  it.each(['4444333322221112', '1234567890', '44443333a2221111', ''])('rejects %p by Luhn', (n) => {
    expect(passesLuhn(n)).toBe(false);
  });

  it.each([
    ['4444333322221111', '4444********1111'],
    ['378282246310005', '3782*******0005'],
    ['1234567890', '1234**7890'],
  ])('masks %s as %s', (n, masked) => expect(maskCardNumber(n)).toBe(masked));
});

describe('the default BIN table', () => {
  const table = createBinTable(loadFixturesFile(DEFAULT_FIXTURES_PATH).bins);

  it.each([
    ['4444333322221111', 'VISA', 'GB', 'credit'],
    ['4917610000000000', 'VISA', 'GB', 'debit'],
    ['4111111111111111', 'VISA', 'US', 'credit'],
    ['5555555555554444', 'MASTERCARD', 'US', 'credit'],
    ['2221000000000009', 'MASTERCARD', 'US', 'credit'],
    ['2720990000000007', 'MASTERCARD', 'US', 'credit'],
    ['5163613613613613', 'MASTERCARD', 'GB', 'debit'],
    ['343434343434343', 'AMEX', 'GB', 'credit'],
    ['378282246310005', 'AMEX', 'US', 'credit'],
    ['6011111111111117', 'DISCOVER', 'US', 'credit'],
    ['6445644564456445', 'DISCOVER', 'US', 'credit'],
    ['3528000700000000', 'JCB', 'JP', 'credit'],
    ['6759649826438453', 'MAESTRO', 'GB', 'debit'],
    ['6304000000000000', 'MAESTRO', 'IE', 'debit'],
    ['36148900647913', 'DINERS', 'US', 'credit'],
    ['30569309025904', 'DINERS', 'US', 'credit'],
  ])('names %s a %s card from %s (%s)', (n, network, countryCode, fundingType) => {
    expect(table.lookup(n)).toEqual({ network, countryCode, fundingType });
  });

  it('reports a number no entry matches as UNKNOWN', () => {
    expect(table.lookup('9999999999999995')).toEqual(UNKNOWN_CARD);
  });

  it('lets the longest prefix win and later entries win ties', () => {
    const t = createBinTable([
      { prefix: '4', network: 'VISA', countryCode: 'US', fundingType: 'credit' },
      { prefix: '4000-4999', network: 'VISA', countryCode: 'FR', fundingType: 'credit' },
      { prefix: '4000-4999', network: 'VISA', countryCode: 'DE', fundingType: 'debit' },
    ]);
    expect(t.lookup('4500000000000000')).toEqual({ network: 'VISA', countryCode: 'DE', fundingType: 'debit' });
  });
});

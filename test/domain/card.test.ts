import { describe, expect, it } from '@jest/globals';
import { createBinTable, lastFourDigits, maskCardNumber, passesLuhn, type BinEntry } from '../../src/domain/card.js';
import { loadFixturesFile, DEFAULT_FIXTURES_PATH } from '../../src/config/fixtures.js';

describe('card rules', () => {
  it.each(['4444333322221111', '5555555555554444', '378282246310005', '6011111111111117', '36148900647913', '0', '00', '18', '59'])(
    'accepts the Luhn-valid number %s',
    (n) => expect(passesLuhn(n)).toBe(true),
  );

  it.each(['4444333322221112', '1234567890', '44443333a2221111', '', '1', '17', '58'])('rejects %p by Luhn', (n) => {
    expect(passesLuhn(n)).toBe(false);
  });

  // Each of these would add up if its non-digit were counted as a digit (char code − 48).
  it.each([' 4444333322221117', 'A4444333322221114', '4444333322221114 ', '4444333322221117A'])(
    'rejects %p, a number with a leading or trailing non-digit',
    (n) => expect(passesLuhn(n)).toBe(false),
  );

  it.each([
    ['4444333322221111', '4444********1111'],
    ['378282246310005', '3782*******0005'],
    ['1234567890', '1234**7890'],
    ['123456789', '1234*6789'],
    ['12345678', '********'],
    ['1234', '****'],
    ['', ''],
  ])('masks %p as %p', (n, masked) => expect(maskCardNumber(n)).toBe(masked));

  it('keeps the last four digits of a card number', () => {
    expect(lastFourDigits('4444333322221111')).toBe('1111');
    expect(lastFourDigits('378282246310005')).toBe('0005');
  });
});

describe('the default BIN table', () => {
  const table = () => createBinTable(loadFixturesFile(DEFAULT_FIXTURES_PATH).bins);

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
    expect(table().lookup(n)).toEqual({ network, countryCode, fundingType });
  });

  it('reports a number no entry matches as an UNKNOWN card from the US with an unknown funding type', () => {
    expect(table().lookup('9999999999999995')).toStrictEqual({ network: 'UNKNOWN', countryCode: 'US', fundingType: 'unknown' });
  });
});

describe('a BIN table', () => {
  const entry = (prefix: string, countryCode: string, network = 'VISA', fundingType = 'credit'): BinEntry => ({ prefix, network, countryCode, fundingType });
  const UNKNOWN = { network: 'UNKNOWN', countryCode: 'US', fundingType: 'unknown' };

  it('lets the longest prefix win and later entries win ties', () => {
    const t = createBinTable([entry('4', 'US'), entry('4000-4999', 'FR'), entry('4000-4999', 'DE', 'VISA', 'debit')]);
    expect(t.lookup('4500000000000000')).toEqual({ network: 'VISA', countryCode: 'DE', fundingType: 'debit' });
  });

  it('lets the longest prefix win over a shorter one listed after it', () => {
    const t = createBinTable([entry('4444', 'GB'), entry('4', 'US'), entry('44', 'FR')]);
    expect(t.lookup('4444333322221111').countryCode).toBe('GB');
    expect(t.lookup('4455000000000000').countryCode).toBe('FR');
    expect(t.lookup('4111111111111111').countryCode).toBe('US');
  });

  it('orders entries of many lengths longest first, whatever their order in the file', () => {
    const t = createBinTable([
      entry('4', 'L1'),
      entry('411111', 'L6'),
      entry('41', 'L2'),
      entry('41111111', 'L8'),
      entry('411', 'L3'),
      entry('4111111', 'L7'),
      entry('4111', 'L4'),
      entry('41111', 'L5'),
    ]);
    expect(t.lookup('4111111111111111').countryCode).toBe('L8');
    expect(t.lookup('4111111211111111').countryCode).toBe('L7');
    expect(t.lookup('4111112111111111').countryCode).toBe('L6');
    expect(t.lookup('4111121111111111').countryCode).toBe('L5');
    expect(t.lookup('4111211111111111').countryCode).toBe('L4');
    expect(t.lookup('4112111111111111').countryCode).toBe('L3');
    expect(t.lookup('4121111111111111').countryCode).toBe('L2');
    expect(t.lookup('4211111111111111').countryCode).toBe('L1');
  });

  it('lets a longer range win over a shorter prefix listed after it, and keeps both ends of a range inclusive', () => {
    const t = createBinTable([entry('2221-2720', 'RANGE', 'MASTERCARD'), entry('2', 'SHORT', 'OTHER')]);
    expect(t.lookup('2221000000000009')).toEqual({ network: 'MASTERCARD', countryCode: 'RANGE', fundingType: 'credit' });
    expect(t.lookup('2720990000000007').countryCode).toBe('RANGE');
    expect(t.lookup('2500000000000000').countryCode).toBe('RANGE');
    expect(t.lookup('2220990000000000').countryCode).toBe('SHORT');
    expect(t.lookup('2721000000000000').countryCode).toBe('SHORT');
  });

  it('lets the later of two equal prefixes win', () => {
    const t = createBinTable([entry('4', 'FIRST'), entry('4', 'SECOND')]);
    expect(t.lookup('4444333322221111').countryCode).toBe('SECOND');
  });

  it('matches nothing for a number shorter than every prefix it would fall in', () => {
    const t = createBinTable([entry('300-500', 'GB')]);
    expect(t.lookup('4')).toEqual(UNKNOWN);
    expect(t.lookup('40')).toEqual(UNKNOWN);
    expect(t.lookup('400')).toEqual({ network: 'VISA', countryCode: 'GB', fundingType: 'credit' });
  });

  it('reports a number no entry matches as UNKNOWN', () => {
    expect(createBinTable([entry('4', 'GB')]).lookup('5555555555554444')).toStrictEqual(UNKNOWN);
    expect(createBinTable([]).lookup('4444333322221111')).toStrictEqual(UNKNOWN);
  });

  it('keeps only network, country and funding type in the profile it reports', () => {
    const t = createBinTable([entry('4', 'GB', 'VISA', 'debit')]);
    expect(t.lookup('4444333322221111')).toStrictEqual({ network: 'VISA', countryCode: 'GB', fundingType: 'debit' });
  });
});

/** A card number that counts how often the lookup slices it: every scan of the table slices once per entry. */
class CountingNumber extends String {
  slices = 0;
  override slice(start?: number, end?: number): string {
    this.slices++;
    return super.slice(start, end);
  }
}
const counting = (n: string) => new CountingNumber(n);
const lookup = (table: ReturnType<typeof createBinTable>, n: CountingNumber) => table.lookup(n as unknown as string);

describe('the BIN lookup cache', () => {
  const entries: BinEntry[] = [
    { prefix: '4', network: 'VISA', countryCode: 'US', fundingType: 'credit' },
    { prefix: '444433', network: 'VISA', countryCode: 'GB', fundingType: 'credit' },
  ];

  it('answers a second number with the same first 8 digits from the cache, without scanning the table', () => {
    const t = createBinTable(entries);
    const first = counting('4444333322221111');
    expect(lookup(t, first)).toEqual({ network: 'VISA', countryCode: 'GB', fundingType: 'credit' });
    expect(first.slices).toBeGreaterThan(1);
    const second = counting('4444333399998888');
    expect(lookup(t, second)).toEqual({ network: 'VISA', countryCode: 'GB', fundingType: 'credit' });
    expect(second.slices).toBe(1);
  });

  it('caches unknown cards too', () => {
    const t = createBinTable(entries);
    lookup(t, counting('5555555555554444'));
    const again = counting('5555555500000000');
    expect(lookup(t, again)).toEqual({ network: 'UNKNOWN', countryCode: 'US', fundingType: 'unknown' });
    expect(again.slices).toBe(1);
  });

  it('holds at most 10,000 prefixes: the 10,001st is looked up afresh every time', () => {
    const t = createBinTable(entries);
    for (let i = 0; i < 10_000; i++) t.lookup(`4${String(i).padStart(7, '0')}00000000`);
    const cached = counting('4000999900000000');
    expect(lookup(t, cached).countryCode).toBe('US');
    expect(cached.slices).toBe(1);
    lookup(t, counting('4100000000000000'));
    const again = counting('4100000000000000');
    expect(lookup(t, again).countryCode).toBe('US');
    expect(again.slices).toBeGreaterThan(1);
  });
});

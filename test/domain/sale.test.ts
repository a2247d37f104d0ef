import { describe, expect, it } from '@jest/globals';
import { outcomeForName, riskFactorsFor } from '../../src/domain/magic-values.js';
import { isCardExpired } from '../../src/domain/sale.js';
import { REFUSALS } from '../support/refusals.js';


describe('outcome by card holder name', () => {
  it.each(REFUSALS)('REFUSED%s refuses with that code and the description %p', (code, description) => {
    expect(outcomeForName(`REFUSED${code}`)).toStrictEqual({ kind: 'refuse', refusal: { code, description } });
  });

  it.each([
    ['REFUSED', { kind: 'refuse', refusal: { code: '5', description: 'REFUSED' } }],
    ['refused51', { kind: 'refuse', refusal: { code: '51', description: 'LIMIT EXCEEDED' } }],
    [' REFUSED43 ', { kind: 'refuse', refusal: { code: '43', description: 'STOLEN CARD, PICK UP' } }],
    ['REFUSED99', { kind: 'refuse', refusal: { code: '99', description: 'REFUSED' } }],
    ['REFUSED051', { kind: 'refuse', refusal: { code: '51', description: 'LIMIT EXCEEDED' } }],
    ['REFUSED999', { kind: 'refuse', refusal: { code: '999', description: 'REFUSED' } }],
    ['ERROR', { kind: 'error' }],
    [' error ', { kind: 'error' }],
    ['Sherlock Holmes', { kind: 'approve' }],
    ['REFUSED SOMETIMES', { kind: 'approve' }],
    ['ERRORS', { kind: 'approve' }],
    ['AN ERROR', { kind: 'approve' }],
  ])('%p → %p', (name, expected) => expect(outcomeForName(name)).toStrictEqual(expected));

  it.each(['MR REFUSED', 'REFUSED5X', 'NOT REFUSED51', 'REFUSED1234', 'REFUSED 5', 'REFUSED-5', 'XREFUSED'])(
    'approves %p: only a whole name REFUSED or REFUSED<1 to 3 digits> refuses',
    (name) => expect(outcomeForName(name)).toStrictEqual({ kind: 'approve' }),
  );
});

describe('risk factors by billing postal code', () => {
  const both = (risk: string) => [
    { risk, detail: 'address' },
    { risk, detail: 'postcode' },
  ];
  it.each([
    ['AAAA', []],
    ['CCCC', [{ risk: 'not_matched', detail: 'address' }]],
    ['FFFF', [{ risk: 'not_matched', detail: 'postcode' }]],
    ['JJJJ', both('not_matched')],
    ['EEEE', both('not_checked')],
    ['HHHH', both('not_supplied')],
    [' cccc ', [{ risk: 'not_matched', detail: 'address' }]],
    ['ffff', [{ risk: 'not_matched', detail: 'postcode' }]],
    [undefined, both('not_supplied')],
    ['NW1 6XE', []],
    ['', []],
  ])('%p → %p', (postalCode, expected) => expect(riskFactorsFor(postalCode)).toStrictEqual(expected));
});

describe('card expiry', () => {
  const at = (iso: string) => Date.parse(iso);
  it('is valid through the last moment of its expiry month', () => {
    expect(isCardExpired({ month: 1, year: 2030 }, at('2030-01-31T23:59:59.999Z'))).toBe(false);
    expect(isCardExpired({ month: 1, year: 2030 }, at('2030-02-01T00:00:00Z'))).toBe(true);
    expect(isCardExpired({ month: 12, year: 2029 }, at('2030-01-01T00:00:00Z'))).toBe(true);
    expect(isCardExpired({ month: 12, year: 2030 }, at('2030-01-01T00:00:00Z'))).toBe(false);
    expect(isCardExpired({ month: 6, year: 2030 }, at('2030-06-01T00:00:00Z'))).toBe(false);
    expect(isCardExpired({ month: 6, year: 2030 }, at('2030-05-31T23:59:59.999Z'))).toBe(false);
    expect(isCardExpired({ month: 6, year: 2030 }, at('2030-07-01T00:00:00Z'))).toBe(true);
    expect(isCardExpired({ month: 5, year: 2031 }, at('2030-07-01T00:00:00Z'))).toBe(false);
  });
});

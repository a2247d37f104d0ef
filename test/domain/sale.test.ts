import { describe, expect, it } from '@jest/globals';
import { REFUSAL_DESCRIPTIONS, isCardExpired, outcomeForName, riskFactorsFor } from '../../src/domain/sale.js';

describe('outcome by card holder name', () => {
  it.each(Object.entries(REFUSAL_DESCRIPTIONS))('REFUSED%s refuses with that code and its description', (code, description) => {
    expect(outcomeForName(`REFUSED${code}`)).toEqual({ kind: 'refuse', refusal: { code, description } });
  });

  it.each([
    ['REFUSED', { kind: 'refuse', refusal: { code: '5', description: 'REFUSED' } }],
    ['refused51', { kind: 'refuse', refusal: { code: '51', description: 'LIMIT EXCEEDED' } }],
    [' REFUSED43 ', { kind: 'refuse', refusal: { code: '43', description: 'STOLEN CARD, PICK UP' } }],
    ['REFUSED99', { kind: 'refuse', refusal: { code: '99', description: 'REFUSED' } }],
    ['REFUSED051', { kind: 'refuse', refusal: { code: '51', description: 'LIMIT EXCEEDED' } }],
    ['ERROR', { kind: 'error' }],
    ['Sherlock Holmes', { kind: 'approve' }],
    ['REFUSED SOMETIMES', { kind: 'approve' }],
    ['ERRORS', { kind: 'approve' }],
  ])('%p → %p', (name, expected) => expect(outcomeForName(name)).toEqual(expected));
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
    [undefined, both('not_supplied')],
    ['NW1 6XE', []],
  ])('%p → %p', (postalCode, expected) => expect(riskFactorsFor(postalCode)).toEqual(expected));
});

describe('card expiry', () => {
  const at = (iso: string) => Date.parse(iso);
  it('is valid through the last moment of its expiry month', () => {
    expect(isCardExpired({ month: 1, year: 2030 }, at('2030-01-31T23:59:59.999Z'))).toBe(false);
    expect(isCardExpired({ month: 1, year: 2030 }, at('2030-02-01T00:00:00Z'))).toBe(true);
    expect(isCardExpired({ month: 12, year: 2029 }, at('2030-01-01T00:00:00Z'))).toBe(true);
    expect(isCardExpired({ month: 12, year: 2030 }, at('2030-01-01T00:00:00Z'))).toBe(false);
  });
});

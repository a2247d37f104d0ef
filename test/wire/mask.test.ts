import { describe, expect, it } from '@jest/globals';
import { maskCardData, maskCardNumbersIn } from '../../src/wire/mask.js';

describe('masking card numbers in free text', () => {
  it.each([
    ['12 digits', '411111111117', '4111****1117'],
    ['13 digits', '4111111111119', '4111*****1119'],
    ['16 digits', '4444333322221111', '4444********1111'],
    ['19 digits', '4111111111111111110', '4111***********1110'],
  ])('masks a Luhn-valid run of %s like a card number', (_name, digits, masked) => {
    expect(maskCardNumbersIn(`card ${digits} here`)).toBe(`card ${masked} here`);
    expect(maskCardNumbersIn(digits)).toBe(masked);
  });

  it.each([
    ['11 digits', '41111111112'],
    ['20 digits', '41111111111111111115'],
  ])('leaves a Luhn-valid run of %s alone', (_name, digits) => {
    expect(maskCardNumbersIn(`card ${digits} here`)).toBe(`card ${digits} here`);
  });

  it('leaves a run that fails Luhn alone', () => {
    expect(maskCardNumbersIn('card 4444333322221112')).toBe('card 4444333322221112');
  });

  it('does not mask a card number inside a longer run of digits', () => {
    expect(maskCardNumbersIn('1234444333322221111')).toBe('1234444333322221111');
    expect(maskCardNumbersIn('44443333222211119')).toBe('44443333222211119');
  });

  it('masks a card number right next to letters and punctuation', () => {
    expect(maskCardNumbersIn('pan=4444333322221111;')).toBe('pan=4444********1111;');
    expect(maskCardNumbersIn('x4444333322221111x')).toBe('x4444********1111x');
  });

  it('masks every card number in the text', () => {
    expect(maskCardNumbersIn('4444333322221111 and 5555555555554444')).toBe('4444********1111 and 5555********4444');
  });
});

describe('masking card data in a JSON value', () => {
  it('masks any card number field, stars any security code field and masks card numbers in other strings', () => {
    const masked = maskCardData({
      paymentInstrument: { cardNumber: '4444333322221111', cvc: '123', cardHolderName: 'Sherlock Holmes' },
      PAN_cardNumber: 'abcdefghij',
      CVV2: '999',
      securityCode: '1234',
      narrative: { line1: 'paid with 4444333322221111' },
    });
    expect(masked).toStrictEqual({
      paymentInstrument: { cardNumber: '4444********1111', cvc: '***', cardHolderName: 'Sherlock Holmes' },
      PAN_cardNumber: 'abcd**ghij',
      CVV2: '***',
      securityCode: '***',
      narrative: { line1: 'paid with 4444********1111' },
    });
  });

  it.each(['tokenId', 'sealedCardNumber', 'href', 'correlationId'])('leaves the simulator’s own %s alone, even when it passes Luhn', (key) => {
    expect(maskCardData({ [key]: '4444333322221111' })).toStrictEqual({ [key]: '4444333322221111' });
    expect(maskCardData({ [key]: 'id 9900000000000000002' })).toStrictEqual({ [key]: 'id 9900000000000000002' });
  });

  it('masks strings in arrays, which have no key of their own', () => {
    expect(maskCardData(['4444333322221111', '123', 'tokenId'])).toStrictEqual(['4444********1111', '123', 'tokenId']);
    expect(maskCardData({ cvc: ['123'] })).toStrictEqual({ cvc: ['123'] });
  });

  it.each([null, 7, true, undefined])('keeps %p as it is', (value) => {
    expect(maskCardData(value)).toBe(value);
    expect(maskCardData({ cardNumber: value })).toStrictEqual({ cardNumber: value });
  });

  it('masks a top-level string by its content only', () => {
    expect(maskCardData('4444333322221111')).toBe('4444********1111');
    expect(maskCardData('123')).toBe('123');
  });

  it('keeps a "__proto__" key as a plain, writable key of the copy', () => {
    const masked = maskCardData(JSON.parse('{"__proto__": {"cardNumber": "4444333322221111"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(masked, '__proto__')).toStrictEqual({
      value: { cardNumber: '4444********1111' },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });

  it('copies rather than changes the value', () => {
    const value = { cardNumber: '4444333322221111' };
    expect(maskCardData(value)).not.toBe(value);
    expect(value.cardNumber).toBe('4444333322221111');
  });

  const nested = (depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = wrap(value);
    return value;
  };

  it.each([
    ['arrays', (inner: unknown) => [inner]],
    ['objects', (inner: unknown) => ({ a: inner })],
  ])('stops at 64 levels of nested %s', (_name, wrap) => {
    expect(maskCardData(nested(64, '4444333322221111', wrap))).toStrictEqual(nested(64, '4444********1111', wrap));
    expect(maskCardData(nested(64, { b: 1 }, wrap))).toStrictEqual(nested(64, '[nested too deep]', wrap));
    expect(maskCardData(nested(65, 'x', wrap))).toStrictEqual(nested(64, '[nested too deep]', wrap));
  });
});

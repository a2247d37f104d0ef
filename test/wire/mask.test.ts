import { describe, expect, it } from '@jest/globals';
import { maskBodyText, maskCardData, maskCardNumbersIn, maskCardText, maskCorrelationId, maskField, maskHref } from '../../src/wire/mask.js';

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

  it('masks strings in arrays, which have no key of their own, by their content', () => {
    expect(maskCardData(['4444333322221111', '123', 'tokenId'])).toStrictEqual(['4444********1111', '123', 'tokenId']);
  });

  it('masks every value under a card key, in arrays and nested objects too', () => {
    // An array under `cvc` holds security codes: its items are starred like the field itself would be.
    expect(maskCardData({ cvc: ['123'] })).toStrictEqual({ cvc: ['***'] });
    expect(maskCardData({ cvc: [123, { value: 456 }] })).toStrictEqual({ cvc: ['***', { value: '***' }] });
    expect(maskCardData({ cardNumber: ['4444333322221112', 4444333322221112] })).toStrictEqual({ cardNumber: ['4444********1112', '4444********1112'] });
    expect(maskCardData({ card: { cardNumber: { number: '4444 3333 2222 1112' } } })).toStrictEqual({ card: { cardNumber: { number: '4444***********1112' } } });
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

describe('masking card numbers written with separators', () => {
  it.each([
    ['spaces', '4444 3333 2222 1111', '4444 **** **** 1111'],
    ['dashes', '4444-3333-2222-1111', '4444-****-****-1111'],
    ['mixed', '4444 3333-2222 1111', '4444 ****-**** 1111'],
    ['URL spaces (+)', '4444+3333+2222+1111', '4444+****+****+1111'],
    ['URL spaces (%20)', '4444%203333%202222%201111', '4444%20****%20****%201111'],
    ['Amex groups', '3782 822463 10005', '3782 ****** *0005'],
    ['uneven groups', '44 4433 332222 1111', '44 44** ****** 1111'],
  ])('masks a card number grouped by %s', (_name, text, masked) => {
    expect(maskCardNumbersIn(`pay ${text} now`)).toBe(`pay ${masked} now`);
  });

  it('finds a grouped card number beside other digit groups', () => {
    expect(maskCardNumbersIn('ref 12 4444 3333 2222 1111')).toBe('ref 12 4444 **** **** 1111');
    expect(maskCardNumbersIn('4444 3333 2222 1111 2035')).toBe('4444 **** **** 1111 2035');
  });

  it('leaves grouped digits that are no card number alone', () => {
    expect(maskCardNumbersIn('4444 3333 2222 1112')).toBe('4444 3333 2222 1112');
    expect(maskCardNumbersIn('on 2030-01-01 at 12:00, call 0800 123 4567')).toBe('on 2030-01-01 at 12:00, call 0800 123 4567');
    // Two spaces, or another separator, end a group chain.
    expect(maskCardNumbersIn('4444  3333  2222  1111')).toBe('4444  3333  2222  1111');
  });
});

describe('masking numbers', () => {
  it('masks a card number or a CVC given as a JSON number', () => {
    expect(maskCardData({ cardNumber: 4444333322221111, cvc: 123, cvv: 4567, securityCode: 89 })).toStrictEqual({
      cardNumber: '4444********1111',
      cvc: '***',
      cvv: '***',
      securityCode: '***',
    });
  });

  it('masks a number that is a card number under any key, and keeps other numbers as numbers', () => {
    expect(maskCardData({ amount: 4444333322221111, list: [5555555555554444, 250], other: 4444333322221112 })).toStrictEqual({
      amount: '4444********1111',
      list: ['5555********4444', 250],
      other: 4444333322221112,
    });
  });
});

describe('masking text that is not JSON', () => {
  it.each([
    ['broken JSON', '{"cardNumber": 4444333322221112, "cvc": 123', '{"cardNumber": 4444********1112, "cvc": ***'],
    ['broken JSON with strings', '{"cardNumber":"4444333322221112","cvc":"987",', '{"cardNumber":"4444********1112","cvc":"***",'],
    ['YAML', 'cardNumber: 4444 3333 2222 1112\ncvv2: 123', 'cardNumber: 4444 **** **** 1112\ncvv2: ***'],
    ['a form', 'security_code=1234&card_number=4444333322221112', 'security_code=***&card_number=4444********1112'],
    ['free text', 'card 4444-3333-2222-1111 exp 05/35', 'card 4444-****-****-1111 exp 05/35'],
  ])('masks card numbers and security codes after their keys in %s', (_name, text, masked) => {
    expect(maskCardText(text)).toBe(masked);
  });
});

describe('masking a recorded body', () => {
  it('parses JSON and masks it, numbers from their exact digits', () => {
    // 19 digits: JSON.parse would round it (…110 → …000), so it is masked from the text.
    expect(maskBodyText('{"cardNumber": 4111111111111111110, "note": [4111111111111111110], "amount": 5}')).toStrictEqual({
      json: true,
      value: { cardNumber: '4111***********1110', note: ['4111***********1110'], amount: 5 },
    });
    expect(maskBodyText('"4444 3333 2222 1111"')).toStrictEqual({ json: true, value: '4444 **** **** 1111' });
    expect(maskBodyText('[1.5, -2, 1e3, "a\\"b 4444333322221111"]')).toStrictEqual({ json: true, value: [1.5, -2, 1000, 'a"b 4444********1111'] });
  });

  it('masks a body that is not JSON as text', () => {
    expect(maskBodyText('{"cvc": 123, "cardNumber": "4444333322221111"')).toStrictEqual({ json: false, text: '{"cvc": ***, "cardNumber": "4444********1111"' });
  });
});

describe('masking a client\'s Correlation-Id and a link', () => {
  it.each([
    ['4444333322221111', '4444********1111'],
    ['4444-3333-2222-1111', '4444-****-****-1111'],
    ['4444.3333.2222.1111', '4444.****.****.1111'],
    ['order:4444_3333_2222_1111:x', 'order:4444_****_****_1111:x'],
  ])('masks the card number in %s', (id, masked) => {
    expect(maskCorrelationId(id)).toBe(masked);
  });

  it('leaves an id without a card number as it is', () => {
    expect(maskCorrelationId('order-2030-01-01.7')).toBe('order-2030-01-01.7');
  });

  it('masks the host of a link but never its path (a ref)', () => {
    expect(maskHref('http://4444333322221111.test/tokens/4444333322221111')).toBe('http://4444********1111.test/tokens/4444333322221111');
    expect(maskCardData({ _links: { self: { href: 'http://4444-3333-2222-1111/tokens/x' } } })).toStrictEqual({ _links: { self: { href: 'http://4444-****-****-1111/tokens/x' } } });
  });

  it('masks a query parameter by its name and its content', () => {
    expect(maskField('cvc', '123')).toBe('***');
    expect(maskField('cardNumber', '4444333322221112')).toBe('4444********1112');
    expect(maskField('tokenId', '4444333322221111')).toBe('4444333322221111');
    expect(maskField('q', 'x 4444 3333 2222 1111')).toBe('x 4444 **** **** 1111');
  });
});

describe('the edges of a card number in grouped digits', () => {
  it('masks a grouped card number of 12 digits, the fewest a card number has', () => {
    expect(maskCardNumbersIn('pay 4111 1111 1117 now')).toBe('pay 4111 **** 1117 now');
  });

  it('masks a grouped card number of 19 digits, the most a card number has, over the shorter one inside it', () => {
    // '4111 1111 1111 1111' passes Luhn too; the 19 digits' window stars further.
    expect(maskCardNumbersIn('pay 4111 1111 1111 1111 110 now')).toBe('pay 4111 **** **** ***1 110 now');
  });

  it('leaves grouped digits alone that pass Luhn only as 20 digits', () => {
    expect(maskCardNumbersIn('ref 1234 5678 9012 3459 1647')).toBe('ref 1234 5678 9012 3459 1647');
  });

  it('leaves grouped digits alone that pass Luhn but are fewer than 12', () => {
    expect(maskCardNumbersIn('call 0800 123 4569')).toBe('call 0800 123 4569');
  });
});

describe('the edges of card data in values and fields', () => {
  it('masks a number under a card number key from 10 digits on, and keeps a shorter one, whatever its sign or decimals', () => {
    expect(maskCardData({ cardNumber: 1234567890 })).toStrictEqual({ cardNumber: '1234**7890' });
    expect(maskCardData({ cardNumber: 123456789, card: { cardNumber: -12345678 }, cardNumbers: [1.5] })).toStrictEqual({
      cardNumber: 123456789,
      card: { cardNumber: -12345678 },
      cardNumbers: [1.5],
    });
  });

  it.each(['paymentId', 'eventId'])('leaves the simulator’s own %s alone, even when it passes Luhn', (key) => {
    expect(maskCardData({ [key]: '4444333322221111' })).toStrictEqual({ [key]: '4444333322221111' });
  });

  it('masks the host of a link with no path', () => {
    expect(maskHref('http://4444333322221111')).toBe('http://4444********1111');
    expect(maskHref('http://4444-3333-2222-1111')).toBe('http://4444-****-****-1111');
  });

  it('masks an href query parameter as a link, and a parameter of another name as text', () => {
    expect(maskField('href', 'http://x/tokens/4444333322221111')).toBe('http://x/tokens/4444333322221111');
    expect(maskField('next', 'http://x/tokens/4444333322221111')).toBe('http://x/tokens/4444********1111');
  });

  it('masks a security code and a card number after keys written in other ways', () => {
    expect(maskCardText('securityCode: 123')).toBe('securityCode: ***');
    expect(maskCardText('cardNumberValue: 4444 3333 2222 1112')).toBe('cardNumberValue: 4444 **** **** 1112');
    expect(maskCardText('cardNumber = 4444333322221112')).toBe('cardNumber = 4444********1112');
  });
});

describe('the number literals of a recorded body', () => {
  it.each([
    ['a negative number', '[-4444333322221111]', ['-4444********1111']],
    ['a negative number after another number', '[1,-4444333322221111]', [1, '-4444********1111']],
    ['19 digits after another number', '[5,4111111111111111110]', [5, '4111***********1110']],
    ['a number that starts with 9', '[9900000000000000002]', ['9900***********0002']],
    ['a number followed by another', '[4444333322221111,5]', ['4444********1111', 5]],
    ['the digits of a fraction', '[0.4444333322221111]', ['0.4444********1111']],
    ['19 digits of a fraction', '[0.4111111111111111110]', ['0.4111***********1110']],
    ['a number with an exponent', '[4444333322221111e0]', ['4444********1111e0']],
    ['a number with a signed exponent', '[4444333322221111e+0]', ['4444********1111e+0']],
    ['a number with a negative exponent', '[4444333322221111E-10]', ['4444********1111E-10']],
    ['a number with an exponent of two digits', '[4444333322221111e10]', ['4444********1111e10']],
  ])('masks the card number in %s from its exact digits, the whole literal kept as a string', (_name, text, value) => {
    expect(maskBodyText(text)).toStrictEqual({ json: true, value });
  });
});

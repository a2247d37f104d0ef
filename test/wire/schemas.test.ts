import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { WireError } from '../../src/wire/problems.js';
import {
  billingAddress,
  cardHolderName,
  cardNumber,
  clockAdvanceBody,
  clockSetBody,
  createCardExpiryDate,
  createTokenBody,
  description,
  isoInstant,
  namespace,
  oneOf,
  schemeTransactionReference,
  strictBillingAddress,
  strictCreateTokenBody,
  toBillingAddress,
  toCreateInput,
  updateBodies,
  updateCardExpiryDate,
} from '../../src/wire/schemas.js';
import { parseBody } from '../../src/wire/validation.js';

/** [errorName, message] of every problem parseBody reports, or 'ok' when the value parses. */
function problemsOf(schema: z.ZodType, value: unknown, label = 'value'): unknown {
  try {
    parseBody(schema, value, label);
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, p.message]);
    throw err;
  }
}

const long = (n: number): string => 'a'.repeat(n);
const ADDRESS = { address1: '221B Baker Street', postalCode: 'NW1 6XE', city: 'London', countryCode: 'GB' };

describe('text fields', () => {
  it.each<[string, z.ZodType, string[], [string, string][]]>([
    ['description', description, ['a', long(255), 'Card ending 1111', 'Tom and Jerry; 100%'], [
      ['', 'stringIsTooShort'],
      [long(256), 'stringIsTooLong'],
      ['Tom & Jerry', 'stringFailedRegexCheck'],
      ['<b>', 'stringFailedRegexCheck'],
      ['a<', 'stringFailedRegexCheck'],
      ['&a', 'stringFailedRegexCheck'],
    ]],
    ['cardHolderName', cardHolderName, ['a', long(255), 'Tom & <Jerry>'], [
      ['', 'stringIsTooShort'],
      [long(256), 'stringIsTooLong'],
    ]],
    ['schemeTransactionReference', schemeTransactionReference, ['a', long(56), 'ABC 123 xyz'], [
      ['', 'stringIsTooShort'],
      [long(57), 'stringIsTooLong'],
      ['abc-123', 'stringFailedRegexCheck'],
      ['-abc', 'stringFailedRegexCheck'],
      ['abc.', 'stringFailedRegexCheck'],
    ]],
    ['namespace', namespace, ['n', long(64), 'n1', 'a_b', 'cards-2030.x'], [
      ['', 'stringIsTooShort'],
      [long(65), 'stringIsTooLong'],
      ['_private', 'stringFailedRegexCheck'],
      ['my cards', 'stringFailedRegexCheck'],
      ['cards\t', 'stringFailedRegexCheck'],
      ['a&b', 'stringFailedRegexCheck'],
      ['a<b', 'stringFailedRegexCheck'],
      ['&', 'stringFailedRegexCheck'],
    ]],
  ])('%s accepts its valid values and refuses the others', (_name, schema, good, bad) => {
    for (const value of good) expect(problemsOf(schema, value)).toBe('ok');
    for (const [value, errorName] of bad) expect([value, (problemsOf(schema, value) as [string, string][])[0]?.[0]]).toEqual([value, errorName]);
  });

  it.each([
    [description, '', 'value must be between 1 and 255 characters'],
    [description, long(256), 'value must be between 1 and 255 characters'],
    [description, 'a&b', 'value must not contain & or <'],
    [cardHolderName, long(256), 'value must be between 1 and 255 characters'],
    [schemeTransactionReference, long(57), 'value must be between 1 and 56 characters'],
    [schemeTransactionReference, 'a-b', 'value must hold only letters, digits and spaces'],
    [namespace, long(65), 'value must be between 1 and 64 characters'],
    [namespace, '_a', 'value must not start with an underscore or contain spaces, & or <'],
  ])('explains its rule: %#', (schema, value, message) => {
    expect((problemsOf(schema, value) as [string, string][])[0]?.[1]).toBe(message);
  });
});

describe('card numbers', () => {
  it.each(['4111111110', '4444333322221111', '4111111111111111110'])('accepts %s', (n) => expect(problemsOf(cardNumber, n)).toBe('ok'));

  it.each([
    ['411111111', 'stringIsTooShort', 'value must be between 10 and 19 characters'],
    ['41111111111111111115', 'stringIsTooLong', 'value must be between 10 and 19 characters'],
    ['4444-3333-2222', 'stringFailedRegexCheck', 'value must hold only digits'],
    ['a444333322221111', 'stringFailedRegexCheck', 'value must hold only digits'],
    ['444433332222111a', 'stringFailedRegexCheck', 'value must hold only digits'],
    ['4444333322221112', 'panFailedLuhnCheck', 'value must pass the Luhn check'],
  ])('refuses %s as %s', (n, errorName, message) => {
    expect(problemsOf(cardNumber, n)).toStrictEqual([[errorName, message]]);
  });
});

describe('billing addresses', () => {
  const full = { address1: long(80), address2: long(80), address3: long(80), postalCode: long(15), city: long(50), state: long(30), countryCode: 'GB' };

  it('accepts the longest values of every field, and an empty address2 or address3', () => {
    expect(parseBody(billingAddress, full)).toStrictEqual(full);
    expect(parseBody(billingAddress, { ...ADDRESS, address2: '', address3: '' })).toStrictEqual({ ...ADDRESS, address2: '', address3: '' });
    expect(parseBody(billingAddress, ADDRESS)).toStrictEqual(ADDRESS);
  });

  it.each([
    ['address1', '', 'stringIsTooShort', 'address1 must be between 1 and 80 characters'],
    ['address1', long(81), 'stringIsTooLong', 'address1 must be between 1 and 80 characters'],
    ['address2', long(81), 'stringIsTooLong', 'address2 must be at most 80 characters'],
    ['address3', long(81), 'stringIsTooLong', 'address3 must be at most 80 characters'],
    ['postalCode', '', 'stringIsTooShort', 'postalCode must be between 1 and 15 characters'],
    ['postalCode', long(16), 'stringIsTooLong', 'postalCode must be between 1 and 15 characters'],
    ['city', '', 'stringIsTooShort', 'city must be between 1 and 50 characters'],
    ['city', long(51), 'stringIsTooLong', 'city must be between 1 and 50 characters'],
    ['state', '', 'stringIsTooShort', 'state must be between 1 and 30 characters'],
    ['state', long(31), 'stringIsTooLong', 'state must be between 1 and 30 characters'],
    ['countryCode', 'GBR', 'stringIsTooLong', 'countryCode must be exactly 2 characters'],
    ['countryCode', 'G', 'stringIsTooShort', 'countryCode must be exactly 2 characters'],
    ['countryCode', 'gb', 'stringFailedRegexCheck', 'countryCode must be upper-case letters'],
    ['countryCode', 'G1', 'stringFailedRegexCheck', 'countryCode must be upper-case letters'],
    ['countryCode', '1G', 'stringFailedRegexCheck', 'countryCode must be upper-case letters'],
  ])('refuses %s %p as %s', (field, value, errorName, message) => {
    expect(problemsOf(billingAddress, { ...ADDRESS, [field]: value })).toStrictEqual([[errorName, message]]);
  });

  it('requires address1, postalCode, city and countryCode', () => {
    expect(problemsOf(billingAddress, {})).toStrictEqual([
      ['fieldIsMissing', 'address1 is required'],
      ['fieldIsMissing', 'postalCode is required'],
      ['fieldIsMissing', 'city is required'],
      ['fieldIsMissing', 'countryCode is required'],
    ]);
  });

  it('becomes a domain address without the optional keys zod leaves undefined', () => {
    expect(toBillingAddress({ ...ADDRESS, address2: undefined, address3: undefined, state: undefined })).toStrictEqual(ADDRESS);
    expect(toBillingAddress(full)).toStrictEqual(full);
    expect(toBillingAddress({ ...ADDRESS, address3: 'x' })).toStrictEqual({ ...ADDRESS, address3: 'x' });
  });
});

describe('card expiry dates', () => {
  it('accept months 1 to 12 and years 1 to 9999 on create', () => {
    for (const value of [{ month: 1, year: 1 }, { month: 12, year: 9999 }]) expect(parseBody(createCardExpiryDate, value)).toStrictEqual(value);
  });

  it.each([
    [{ month: 0, year: 2035 }, 'integerIsTooSmall', 'month must be between 1 and 12'],
    [{ month: 13, year: 2035 }, 'integerIsTooLarge', 'month must be between 1 and 12'],
    [{ month: 5, year: 0 }, 'integerIsTooSmall', 'year must be between 1 and 9999'],
    [{ month: 5, year: 10000 }, 'integerIsTooLarge', 'year must be between 1 and 9999'],
    [{ month: 1.5, year: 2035 }, 'fieldMustBeInteger', 'month must be an integer'],
  ])('refuse %p on create as %s', (value, errorName, message) => {
    expect(problemsOf(createCardExpiryDate, value)).toStrictEqual([[errorName, message]]);
  });

  it('bound the year only from above on update', () => {
    for (const value of [{ month: 1, year: 0 }, { month: 12, year: -5 }, { month: 6, year: 9999 }]) {
      expect(parseBody(updateCardExpiryDate, value)).toStrictEqual(value);
    }
    expect(problemsOf(updateCardExpiryDate, { month: 5, year: 10000 })).toStrictEqual([['integerIsTooLarge', 'year must be at most 9999']]);
    expect(problemsOf(updateCardExpiryDate, { month: 0, year: 2035 })).toStrictEqual([['integerIsTooSmall', 'month must be between 1 and 12']]);
    expect(problemsOf(updateCardExpiryDate, { month: 13, year: 2035 })).toStrictEqual([['integerIsTooLarge', 'month must be between 1 and 12']]);
  });
});

describe('a field with listed values', () => {
  const kind = oneOf(['a', 'b']);

  it('accepts the listed values only, naming them all', () => {
    expect(parseBody(kind, 'a')).toBe('a');
    expect(parseBody(kind, 'b')).toBe('b');
    expect(problemsOf(kind, 'c')).toStrictEqual([['fieldHasInvalidValue', "value must be 'a' or 'b'"]]);
    expect(problemsOf(oneOf(['moto']), 'ecom')).toStrictEqual([['fieldHasInvalidValue', "value must be 'moto'"]]);
    expect(problemsOf(kind, 1)).toStrictEqual([['fieldMustBeString', 'value must be a string, not the number 1: quote it']]);
  });

  it('lists its values as a JSON Schema enum', () => {
    expect(z.toJSONSchema(kind)).toMatchObject({ type: 'string', enum: ['a', 'b'] });
  });
});

describe('the create-token body', () => {
  const body = (pi: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
    paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 }, ...pi },
    merchant: { entity: 'default' },
    ...top,
  });

  it('becomes the vault’s input with only what the request carries', () => {
    expect(toCreateInput(parseBody(createTokenBody, body()))).toStrictEqual({
      entity: 'default',
      card: { number: '4444333322221111', holderName: 'Sherlock Holmes', expiryDate: { month: 5, year: 2035 } },
    });
  });

  it('becomes the vault’s input with every optional field it carries', () => {
    const full = body(
      { billingAddress: { ...ADDRESS, state: 'Greater London', address2: 'Flat 1' } },
      { description: 'Mine', tokenExpiryDateTime: '2030-01-01T00:00:00+01:00', namespace: 'n1', schemeTransactionReference: 'XYZ 1' },
    );
    expect(toCreateInput(parseBody(createTokenBody, full))).toStrictEqual({
      entity: 'default',
      namespace: 'n1',
      description: 'Mine',
      expiresAt: Date.UTC(2029, 11, 31, 23),
      schemeTransactionReference: 'XYZ 1',
      card: {
        number: '4444333322221111',
        holderName: 'Sherlock Holmes',
        expiryDate: { month: 5, year: 2035 },
        billingAddress: { ...ADDRESS, state: 'Greater London', address2: 'Flat 1' },
      },
    });
  });

  it('parses to its own shape, keeping every field it knows', () => {
    const full = body({ billingAddress: ADDRESS }, { description: 'Mine', tokenExpiryDateTime: '2030-01-01T00:00:00Z', namespace: 'n1', schemeTransactionReference: 'XYZ 1' });
    expect(parseBody(createTokenBody, full)).toStrictEqual(full);
  });

  it.each([
    [{ type: 'card/plain' }, {}, ['fieldHasInvalidValue', "type must be 'card/front'"]],
    [{ type: undefined }, {}, ['fieldIsMissing', 'type is required']],
    [{ cardHolderName: '' }, {}, ['stringIsTooShort', 'cardHolderName must be between 1 and 255 characters']],
    [{ cardNumber: '4444333322221112' }, {}, ['panFailedLuhnCheck', 'cardNumber must pass the Luhn check']],
    [{ cardExpiryDate: { month: 5, year: 0 } }, {}, ['integerIsTooSmall', 'year must be between 1 and 9999']],
    [{ billingAddress: { ...ADDRESS, city: '' } }, {}, ['stringIsTooShort', 'city must be between 1 and 50 characters']],
    [{}, { merchant: { entity: '' } }, ['stringIsTooShort', 'entity must not be empty']],
    [{}, { merchant: {} }, ['fieldIsMissing', 'entity is required']],
    [{}, { description: '<b>' }, ['stringFailedRegexCheck', 'description must not contain & or <']],
    [{}, { tokenExpiryDateTime: '2030-02-01T00:00:00' }, ['dateHasInvalidFormat', 'tokenExpiryDateTime must be an ISO 8601 date-time with a time zone']],
    [{}, { tokenExpiryDateTime: '2030-02-01' }, ['dateHasInvalidFormat', 'tokenExpiryDateTime must be an ISO 8601 date-time with a time zone']],
    [{}, { namespace: '_n' }, ['stringFailedRegexCheck', 'namespace must not start with an underscore or contain spaces, & or <']],
    [{}, { schemeTransactionReference: 'a-b' }, ['stringFailedRegexCheck', 'schemeTransactionReference must hold only letters, digits and spaces']],
  ])('refuses %p %p', (pi, top, problem) => {
    expect(problemsOf(createTokenBody, body(pi, top))).toStrictEqual([problem]);
  });

  it('requires the payment instrument and the merchant', () => {
    expect(problemsOf(createTokenBody, {})).toStrictEqual([
      ['fieldIsMissing', 'paymentInstrument is required'],
      ['fieldIsMissing', 'merchant is required'],
    ]);
  });

  it('accepts an expiry date-time with an offset or in UTC', () => {
    expect(problemsOf(createTokenBody, body({}, { tokenExpiryDateTime: '2030-02-01T00:00:00-05:00' }))).toBe('ok');
    expect(problemsOf(createTokenBody, body({}, { tokenExpiryDateTime: '2030-02-01T00:00:00.5Z' }))).toBe('ok');
  });
});

describe('the update bodies', () => {
  it('take a bare value per field, and objects for the expiry date and the billing address', () => {
    expect(Object.keys(updateBodies).sort()).toStrictEqual(['billingAddress', 'cardExpiryDate', 'cardHolderName', 'description', 'schemeTransactionReference']);
    expect(parseBody(updateBodies.description, 'New')).toBe('New');
    expect(problemsOf(updateBodies.description, 'a&b')).toStrictEqual([['stringFailedRegexCheck', 'value must not contain & or <']]);
    expect(parseBody(updateBodies.cardHolderName, 'John Watson')).toBe('John Watson');
    expect(problemsOf(updateBodies.cardHolderName, '')).toStrictEqual([['stringIsTooShort', 'value must be between 1 and 255 characters']]);
    expect(parseBody(updateBodies.cardExpiryDate, { month: 1, year: -1 })).toStrictEqual({ month: 1, year: -1 });
    expect(parseBody(updateBodies.billingAddress, ADDRESS)).toStrictEqual(ADDRESS);
    expect(problemsOf(updateBodies.billingAddress, {})).not.toBe('ok');
    expect(parseBody(updateBodies.schemeTransactionReference, 'XYZ 2')).toBe('XYZ 2');
    expect(problemsOf(updateBodies.schemeTransactionReference, 'a-b')).toStrictEqual([['stringFailedRegexCheck', 'value must hold only letters, digits and spaces']]);
  });
});

describe('the clock bodies', () => {
  it('advance by a duration text or a number of milliseconds', () => {
    expect(parseBody(clockAdvanceBody, { by: 'P1D' })).toStrictEqual({ by: 'P1D' });
    expect(parseBody(clockAdvanceBody, { by: 5 })).toStrictEqual({ by: 5 });
    expect(problemsOf(clockAdvanceBody, { by: true })).toStrictEqual([['fieldHasInvalidValue', 'by must be an ISO 8601 duration or a number of milliseconds']]);
    expect(problemsOf(clockAdvanceBody, {})).toStrictEqual([['fieldIsMissing', 'by is required']]);
  });

  it('set the clock to an instant, frozen or not', () => {
    expect(parseBody(clockSetBody, { now: '2030-01-01' })).toStrictEqual({ now: '2030-01-01' });
    expect(parseBody(clockSetBody, { now: '2030-01-01T00:00:00+01:00', frozen: true })).toStrictEqual({ now: '2030-01-01T00:00:00+01:00', frozen: true });
    expect(problemsOf(clockSetBody, { now: 'soon' })).toStrictEqual([['dateHasInvalidFormat', 'now must be an ISO 8601 date-time with a time zone, or a date']]);
    expect(problemsOf(clockSetBody, { now: '2030-01-01T00:00:00' })).toStrictEqual([['dateHasInvalidFormat', 'now must be an ISO 8601 date-time with a time zone, or a date']]);
    expect(problemsOf(clockSetBody, { now: '2030-01-01', frozen: 'yes' })).toStrictEqual([['fieldMustBeBoolean', 'frozen must be a boolean']]);
    expect(problemsOf(clockSetBody, {})).toStrictEqual([['fieldIsMissing', 'now is required']]);
  });
});

describe('dates the token API and the clock read', () => {
  const withExpiry = (tokenExpiryDateTime: string) => ({
    paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
    merchant: { entity: 'default' },
    tokenExpiryDateTime,
  });

  it.each([
    ['2030-02-31T00:00:00Z', 'February 2030 has 28 days'],
    ['2030-02-29T00:00:00Z', 'February 2030 has 28 days'],
    ['2030-01-01T24:00:00Z', 'hours go up to 23, not 24'],
    ['2030-01-01T00:00:00+24:00', 'zone offsets go up to ±23:59, not 24:00'],
  ])('refuses a tokenExpiryDateTime that does not exist (%p) as dateHasInvalidFormat', (text, reason) => {
    expect(problemsOf(createTokenBody, withExpiry(text))).toStrictEqual([['dateHasInvalidFormat', `tokenExpiryDateTime must be a date and time that exists: ${reason}`]]);
  });

  it.each(['2030-02-01T00:00Z', '2030-02-01t00:00:00Z', ' 2030-02-01T00:00:00Z'])('still refuses a tokenExpiryDateTime of another form (%p)', (text) => {
    expect(problemsOf(createTokenBody, withExpiry(text))).toStrictEqual([['dateHasInvalidFormat', 'tokenExpiryDateTime must be an ISO 8601 date-time with a time zone']]);
  });

  it('reads a leap day and a number is still not a string', () => {
    expect(toCreateInput(parseBody(createTokenBody, withExpiry('2032-02-29T12:00:00Z'))).expiresAt).toBe(Date.UTC(2032, 1, 29, 12));
    expect(problemsOf(createTokenBody, { ...withExpiry(''), tokenExpiryDateTime: 5 })).toStrictEqual([['fieldMustBeString', 'tokenExpiryDateTime must be a string, not the number 5: quote it']]);
  });

  it('refuses a clock set to a date that does not exist, at now', () => {
    expect(problemsOf(clockSetBody, { now: '2030-02-31T00:00:00Z' })).toStrictEqual([['dateHasInvalidFormat', 'now must be a date and time that exists: February 2030 has 28 days']]);
    expect(problemsOf(clockSetBody, { now: '2030-04-31' })).toStrictEqual([['dateHasInvalidFormat', 'now must be a date and time that exists: April 2030 has 30 days']]);
  });
});

describe('strict variants for files', () => {
  const valid = {
    paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 }, billingAddress: ADDRESS },
    merchant: { entity: 'default' },
    description: 'd',
    tokenExpiryDateTime: '2030-02-01T00:00:00Z',
    namespace: 'n',
    schemeTransactionReference: 'X',
  };
  const pathsOf = (schema: z.ZodType, value: unknown): unknown => {
    try {
      parseBody(schema, value);
      return 'ok';
    } catch (err) {
      if (err instanceof WireError) return err.problems.map((p) => [p.errorName, p.path]);
      throw err;
    }
  };
  const spoilt = {
    ...valid,
    paymentInstrument: { ...valid.paymentInstrument, colour: 'blue', cardExpiryDate: { month: 5, year: 2035, day: 1 }, billingAddress: { ...ADDRESS, zip: '1' } },
    merchant: { entity: 'default', id: 1 },
    extra: true,
  };

  it('accept every field the API body defines, and parse to the same output', () => {
    expect(parseBody(strictCreateTokenBody, valid)).toStrictEqual(parseBody(createTokenBody, valid));
    expect(parseBody(strictBillingAddress, { ...ADDRESS, address2: 'a', address3: 'b', state: 's' })).toStrictEqual({ ...ADDRESS, address2: 'a', address3: 'b', state: 's' });
  });

  it('refuse a field the API body does not define, at any depth, where the API body ignores it', () => {
    expect(pathsOf(createTokenBody, spoilt)).toBe('ok');
    expect(pathsOf(billingAddress, { ...ADDRESS, zip: '1' })).toBe('ok');
    expect(pathsOf(strictCreateTokenBody, spoilt)).toStrictEqual([
      ['fieldIsNotAllowed', ['paymentInstrument', 'cardExpiryDate', 'day']],
      ['fieldIsNotAllowed', ['paymentInstrument', 'billingAddress', 'zip']],
      ['fieldIsNotAllowed', ['paymentInstrument', 'colour']],
      ['fieldIsNotAllowed', ['merchant', 'id']],
      ['fieldIsNotAllowed', ['extra']],
    ]);
    expect(pathsOf(strictBillingAddress, { ...ADDRESS, zip: '1' })).toStrictEqual([['fieldIsNotAllowed', ['zip']]]);
  });
});

describe('instants in JSON Schema', () => {
  it('describes a date-time as format date-time, and a date or date-time as either, as the OpenAPI document names them', () => {
    expect(z.toJSONSchema(isoInstant('dateTime', 'must be a date-time'))).toStrictEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'string',
      format: 'date-time',
    });
    expect(z.toJSONSchema(isoInstant('dateOrDateTime', 'must be a date or a date-time'))).toStrictEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'string',
      anyOf: [{ format: 'date-time' }, { format: 'date' }],
    });
  });
});

import { describe, expect, it } from '@jest/globals';
import { WireError } from '../../src/wire/problems.js';
import { saleBody } from '../../src/wire/sale-schemas.js';
import { parseBody, toJsonPath } from '../../src/wire/validation.js';

/** [errorName, JSONPath, message] of every problem, or 'ok' when the body parses. */
function problemsOf(body: unknown): unknown {
  try {
    parseBody(saleBody, body);
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, toJsonPath(p.path ?? []), p.message]);
    throw err;
  }
}

const plainCard = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'card/plain',
  cardNumber: '4444333322221111',
  cardHolderName: 'Sherlock Holmes',
  cardExpiryDate: { month: 5, year: 2035 },
  ...fields,
});

const body = (paymentInstrument: unknown = plainCard(), overrides: Record<string, unknown> = {}, value: Record<string, unknown> = {}) => ({
  instruction: { value: { amount: 250, currency: 'GBP', ...value }, narrative: { line1: 'Baker Street Stores' }, paymentInstrument },
  merchant: { entity: 'default' },
  transactionReference: 'order-0001',
  ...overrides,
});

describe('the sale body', () => {
  it('parses a full plain-card sale to its own shape', () => {
    const full = {
      instruction: {
        value: { amount: 0, currency: 'EUR' },
        narrative: { line1: 'Baker Street Stores', line2: 'Order 1' },
        paymentInstrument: plainCard({
          billingAddress: { address1: '221B Baker Street', postalCode: 'NW1 6XE', city: 'London', countryCode: 'GB' },
          cvc: '1234',
        }),
        debtRepayment: false,
      },
      merchant: {
        entity: 'default',
        mcc: '5411',
        paymentFacilitator: {
          pfId: 'pf',
          subMerchant: { city: 'London', name: 'Shop', postalCode: 'NW1', merchantId: 'm1', countryCode: 'GB', street: 'Baker Street', state: 'LDN', taxId: 'T1' },
          isoId: 'iso',
        },
      },
      transactionReference: 'order-0001',
      channel: 'moto',
      customer: { authentication: { eci: '05', type: '3DS', authenticationValue: 'v', version: '2.2', transactionId: 't' } },
    };
    expect(parseBody(saleBody, full)).toStrictEqual(full);
  });

  it('parses a token sale with a security code', () => {
    const tokenBody = body({ type: 'card/token', href: 'https://host/tokens/abc', cvc: '123' });
    expect(parseBody(saleBody, tokenBody)).toStrictEqual(tokenBody);
  });

  it('parses the smallest plain-card sale', () => {
    expect(parseBody(saleBody, body())).toStrictEqual(body());
  });

  it.each([
    [plainCard({ cvc: '12' }), ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [plainCard({ cvc: '12345' }), ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [plainCard({ cvc: 'abc' }), ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [plainCard({ cvc: 'a123' }), ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [plainCard({ cvc: '123a' }), ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [{ type: 'card/token', href: '', cvc: '123' }, ['stringIsTooShort', '$.instruction.paymentInstrument.href', 'href must not be empty']],
    [{ type: 'card/token', href: 'x', cvc: '1' }, ['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc', 'cvc must be 3 or 4 digits']],
    [plainCard({ cardNumber: '4444333322221112' }), ['panFailedLuhnCheck', '$.instruction.paymentInstrument.cardNumber', 'cardNumber must pass the Luhn check']],
    [plainCard({ cardHolderName: '' }), ['stringIsTooShort', '$.instruction.paymentInstrument.cardHolderName', 'cardHolderName must be between 1 and 255 characters']],
    [plainCard({ cardExpiryDate: { month: 13, year: 2035 } }), ['integerIsTooLarge', '$.instruction.paymentInstrument.cardExpiryDate.month', 'month must be between 1 and 12']],
    [plainCard({ billingAddress: {} }), ['fieldIsMissing', '$.instruction.paymentInstrument.billingAddress.address1', 'address1 is required']],
  ])('refuses the instrument %p', (instrument, problem) => {
    expect((problemsOf(body(instrument)) as unknown[])[0]).toStrictEqual(problem);
  });

  it.each([
    [{ type: 'card/front' }],
    [{ type: 'card/plain+masked' }],
    [{ type: 7 }],
  ])('refuses an instrument of another type, %p, naming the two kinds', (instrument) => {
    expect(problemsOf(body(instrument))).toStrictEqual([
      ['fieldHasInvalidValue', '$.instruction.paymentInstrument.type', "type must be 'card/plain' or 'card/token'"],
    ]);
  });

  it.each([
    [{ amount: -1 }, ['integerIsTooSmall', '$.instruction.value.amount', 'amount must be 0 or more']],
    [{ amount: 1.5 }, ['fieldMustBeInteger', '$.instruction.value.amount', 'amount must be an integer']],
    [{ currency: 'gbp' }, ['stringFailedRegexCheck', '$.instruction.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    [{ currency: 'GB' }, ['stringFailedRegexCheck', '$.instruction.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    [{ currency: 'GBPX' }, ['stringFailedRegexCheck', '$.instruction.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    [{ currency: 'XGBP' }, ['stringFailedRegexCheck', '$.instruction.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
  ])('refuses the value %p', (value, problem) => {
    expect(problemsOf(body(plainCard(), {}, value))).toStrictEqual([problem]);
  });

  it.each([
    [{ merchant: { entity: '' } }, ['stringIsTooShort', '$.merchant.entity', 'entity must not be empty']],
    [{ merchant: {} }, ['fieldIsMissing', '$.merchant.entity', 'entity is required']],
    [{ channel: 'ecom' }, ['fieldHasInvalidValue', '$.channel', "channel must be 'moto'"]],
    [{ transactionReference: 1 }, ['fieldMustBeString', '$.transactionReference', 'transactionReference must be a string, not the number 1: quote it']],
    [{ merchant: { entity: 'default', paymentFacilitator: { pfId: 'pf' } } }, ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant', 'subMerchant is required']],
    [{ customer: { authentication: { eci: '05' } } }, ['fieldIsMissing', '$.customer.authentication.type', 'type is required']],
  ])('refuses %p', (overrides, problem) => {
    expect(problemsOf(body(plainCard(), overrides))).toStrictEqual([problem]);
  });

  it('requires an instruction with a value, a narrative and an instrument, a merchant and a transaction reference', () => {
    expect(problemsOf({})).toStrictEqual([
      ['fieldIsMissing', '$.instruction', 'instruction is required'],
      ['fieldIsMissing', '$.merchant', 'merchant is required'],
      ['fieldIsMissing', '$.transactionReference', 'transactionReference is required'],
    ]);
    expect(problemsOf({ ...body(), instruction: {} })).toStrictEqual([
      ['fieldIsMissing', '$.instruction.value', 'value is required'],
      ['fieldIsMissing', '$.instruction.narrative', 'narrative is required'],
      ['fieldIsMissing', '$.instruction.paymentInstrument', 'paymentInstrument is required'],
    ]);
  });

  it('accepts 3- and 4-digit security codes', () => {
    expect(problemsOf(body(plainCard({ cvc: '123' })))).toBe('ok');
    expect(problemsOf(body(plainCard({ cvc: '0000' })))).toBe('ok');
  });
});

import { describe, expect, it } from '@jest/globals';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { testSimulator } from '../support/sim.js';

type Expected = [errorName: string, jsonPath: string][];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the edits reach into arbitrary JSON on purpose
type Body = Record<string, any>;

const pairs = (body: { validationErrors?: { errorName: string; jsonPath?: string }[] }): Expected =>
  (body.validationErrors ?? []).map((v) => [v.errorName, v.jsonPath ?? '']);

const facilitator = () => ({
  pfId: 'PF-1',
  subMerchant: { city: 'London', name: 'Corner Shop', postalCode: 'NW1', merchantId: 'M-9', countryCode: 'GB', street: 'Baker Street' },
});

const authentication = () => ({ eci: '05', type: '3DS' });

/** A valid sale body changed by `edit`. */
function edited(edit: (b: Body) => void): Body {
  const body = structuredClone(saleBody()) as Body;
  edit(body);
  return body;
}

describe('sale request validation', () => {
  const sim = testSimulator();

  it('accepts every optional part when it is complete', async () => {
    const res = await sale(
      sim,
      edited((b) => {
        b.instruction.narrative.line2 = 'order 1';
        b.instruction.debtRepayment = false;
        b.merchant = { entity: 'default', mcc: '5411', paymentFacilitator: { ...facilitator(), isoId: 'ISO', subMerchant: { ...facilitator().subMerchant, state: 'LDN', taxId: 'T1' } } };
        b.channel = 'moto';
        b.customer = { authentication: { ...authentication(), authenticationValue: 'AAA', version: '2.2.0', transactionId: 'tx' } };
      }),
    );
    expect(res.status).toBe(201);
  });

  it.each<[string, (b: Body) => void, Expected]>([
    ['a missing instruction', (b) => delete b.instruction, [['fieldIsMissing', '$.instruction']]],
    ['a missing value', (b) => delete b.instruction.value, [['fieldIsMissing', '$.instruction.value']]],
    ['a missing amount', (b) => delete b.instruction.value.amount, [['fieldIsMissing', '$.instruction.value.amount']]],
    ['a negative amount', (b) => (b.instruction.value.amount = -1), [['integerIsTooSmall', '$.instruction.value.amount']]],
    ['a fractional amount', (b) => (b.instruction.value.amount = 2.5), [['fieldMustBeInteger', '$.instruction.value.amount']]],
    ['a string amount', (b) => (b.instruction.value.amount = '250'), [['fieldMustBeInteger', '$.instruction.value.amount']]],
    ['a missing currency', (b) => delete b.instruction.value.currency, [['fieldIsMissing', '$.instruction.value.currency']]],
    ['a lower-case currency', (b) => (b.instruction.value.currency = 'gbp'), [['stringFailedRegexCheck', '$.instruction.value.currency']]],
    ['a 4-letter currency', (b) => (b.instruction.value.currency = 'GBPX'), [['stringFailedRegexCheck', '$.instruction.value.currency']]],
    ['a missing narrative', (b) => delete b.instruction.narrative, [['fieldIsMissing', '$.instruction.narrative']]],
    ['a missing narrative line1', (b) => (b.instruction.narrative = {}), [['fieldIsMissing', '$.instruction.narrative.line1']]],
    ['a numeric narrative line2', (b) => (b.instruction.narrative.line2 = 2), [['fieldMustBeString', '$.instruction.narrative.line2']]],
    ['a missing payment instrument', (b) => delete b.instruction.paymentInstrument, [['fieldIsMissing', '$.instruction.paymentInstrument']]],
    ['an instrument without type', (b) => delete b.instruction.paymentInstrument.type, [['fieldIsMissing', '$.instruction.paymentInstrument.type']]],
    ['another instrument type', (b) => (b.instruction.paymentInstrument.type = 'card/front'), [['fieldHasInvalidValue', '$.instruction.paymentInstrument.type']]],
    ['a plain card failing Luhn', (b) => (b.instruction.paymentInstrument.cardNumber = '4444333322221112'), [['panFailedLuhnCheck', '$.instruction.paymentInstrument.cardNumber']]],
    ['a plain card without holder name', (b) => delete b.instruction.paymentInstrument.cardHolderName, [['fieldIsMissing', '$.instruction.paymentInstrument.cardHolderName']]],
    ['a plain card with month 13', (b) => (b.instruction.paymentInstrument.cardExpiryDate.month = 13), [['integerIsTooLarge', '$.instruction.paymentInstrument.cardExpiryDate.month']]],
    ['a plain card with a bad country code', (b) => (b.instruction.paymentInstrument.billingAddress = { address1: 'a', postalCode: 'p', city: 'c', countryCode: 'gb' }), [['stringFailedRegexCheck', '$.instruction.paymentInstrument.billingAddress.countryCode']]],
    ['a 2-digit cvc', (b) => (b.instruction.paymentInstrument.cvc = '12'), [['stringFailedRegexCheck', '$.instruction.paymentInstrument.cvc']]],
    ['a numeric cvc', (b) => (b.instruction.paymentInstrument.cvc = 123), [['fieldMustBeString', '$.instruction.paymentInstrument.cvc']]],
    ['a token instrument without href', (b) => (b.instruction.paymentInstrument = { type: 'card/token' }), [['fieldIsMissing', '$.instruction.paymentInstrument.href']]],
    ['a non-boolean debtRepayment', (b) => (b.instruction.debtRepayment = 'yes'), [['fieldMustBeBoolean', '$.instruction.debtRepayment']]],
    ['a missing merchant', (b) => delete b.merchant, [['fieldIsMissing', '$.merchant']]],
    ['a missing merchant entity', (b) => (b.merchant = {}), [['fieldIsMissing', '$.merchant.entity']]],
    ['a numeric mcc', (b) => (b.merchant.mcc = 5411), [['fieldMustBeString', '$.merchant.mcc']]],
    ['a payment facilitator without pfId', (b) => (b.merchant.paymentFacilitator = { subMerchant: facilitator().subMerchant }), [['fieldIsMissing', '$.merchant.paymentFacilitator.pfId']]],
    ['a payment facilitator without subMerchant', (b) => (b.merchant.paymentFacilitator = { pfId: 'PF' }), [['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant']]],
    ...(['city', 'name', 'postalCode', 'merchantId', 'countryCode', 'street'] as const).map(
      (field): [string, (b: Body) => void, Expected] => [
        `a sub-merchant without ${field}`,
        (b) => {
          const pf = facilitator() as Body;
          delete pf.subMerchant[field];
          b.merchant.paymentFacilitator = pf;
        },
        [['fieldIsMissing', `$.merchant.paymentFacilitator.subMerchant.${field}`]],
      ],
    ),
    ['a numeric sub-merchant taxId', (b) => (b.merchant.paymentFacilitator = { ...facilitator(), subMerchant: { ...facilitator().subMerchant, taxId: 1 } }), [['fieldMustBeString', '$.merchant.paymentFacilitator.subMerchant.taxId']]],
    ['a missing transaction reference', (b) => delete b.transactionReference, [['fieldIsMissing', '$.transactionReference']]],
    ['a channel other than moto', (b) => (b.channel = 'ecom'), [['fieldHasInvalidValue', '$.channel']]],
    ['a customer without authentication', (b) => (b.customer = {}), [['fieldIsMissing', '$.customer.authentication']]],
    ['an authentication without eci', (b) => (b.customer = { authentication: { type: '3DS' } }), [['fieldIsMissing', '$.customer.authentication.eci']]],
    ['an authentication without type', (b) => (b.customer = { authentication: { eci: '05' } }), [['fieldIsMissing', '$.customer.authentication.type']]],
    // A null optional field (version) is absent since contract 3.3; a null mandatory one is fieldIsNull (decision 0032).
    ['a null authentication eci', (b) => (b.customer = { authentication: { ...authentication(), eci: null } }), [['fieldIsNull', '$.customer.authentication.eci']]],
  ])('reports %s', async (_name, edit, expected) => {
    const res = await sale(sim, edited(edit));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(pairs(res.body)).toEqual(expected);
  });

  it('reports every offending field of a sale at once', async () => {
    const res = await sale(sim, {
      instruction: { value: { amount: -5 }, narrative: {}, paymentInstrument: plainCard({ cardNumber: '1' }) },
      merchant: { paymentFacilitator: { pfId: 'x', subMerchant: {} } },
      channel: 'web',
    });
    expect(pairs(res.body)).toEqual([
      ['integerIsTooSmall', '$.instruction.value.amount'],
      ['fieldIsMissing', '$.instruction.value.currency'],
      ['fieldIsMissing', '$.instruction.narrative.line1'],
      ['stringIsTooShort', '$.instruction.paymentInstrument.cardNumber'],
      ['fieldIsMissing', '$.merchant.entity'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.city'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.name'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.postalCode'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.merchantId'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.countryCode'],
      ['fieldIsMissing', '$.merchant.paymentFacilitator.subMerchant.street'],
      ['fieldIsMissing', '$.transactionReference'],
      ['fieldHasInvalidValue', '$.channel'],
    ]);
  });

  it('checks the body before business rules', async () => {
    const res = await sale(sim, edited((b) => {
      b.merchant.entity = 'unconfigured';
      delete b.transactionReference;
    }));
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
  });
});

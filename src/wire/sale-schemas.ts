/** zod schemas of the payments v5 sale and partial refund (contract 3.2); `null` is absent (decision 0032). */
import * as z from 'zod';
import { billingAddress, cardHolderName, cardNumber, createCardExpiryDate, nonEmpty, oneOf, text } from './schemas.js';

const currency = z.string().regex(/^[A-Z]{3}$/, 'must be 3 upper-case letters (ISO 4217)');

const cvc = z.string().regex(/^[0-9]{3,4}$/, 'must be 3 or 4 digits');

const plainCard = z.object({
  type: z.literal('card/plain'),
  cardNumber,
  cardHolderName,
  cardExpiryDate: createCardExpiryDate,
  billingAddress: billingAddress.nullish(),
  cvc: cvc.nullish(),
});

const tokenCard = z.object({
  type: z.literal('card/token'),
  href: nonEmpty,
  cvc: cvc.nullish(),
});

export const saleBody = z.object({
  instruction: z.object({
    value: z.object({
      amount: z.int().min(0, 'must be 0 or more'),
      currency,
    }),
    narrative: z.object({ line1: z.string(), line2: z.string().nullish() }),
    paymentInstrument: z.discriminatedUnion('type', [plainCard, tokenCard], { error: "must be 'card/plain' or 'card/token'" }),
    debtRepayment: z.boolean().nullish(),
  }),
  merchant: z.object({
    entity: nonEmpty,
    mcc: z.string().nullish(),
    paymentFacilitator: z.object({
      pfId: z.string(),
      subMerchant: z.object({
        city: z.string(),
        name: z.string(),
        postalCode: z.string(),
        merchantId: z.string(),
        countryCode: z.string(),
        street: z.string(),
        state: z.string().nullish(),
        taxId: z.string().nullish(),
      }),
      isoId: z.string().nullish(),
    }).nullish(),
  }),
  transactionReference: z.string(),
  channel: oneOf(['moto']).nullish(),
  customer: z.object({
    authentication: z.object({
      eci: z.string(),
      type: z.string(),
      authenticationValue: z.string().nullish(),
      version: z.string().nullish(),
      transactionId: z.string().nullish(),
    }),
  }).nullish(),
});

export type SaleBody = z.output<typeof saleBody>;

export const partialRefundBody = z.object({
  value: z.object({ amount: z.int().min(1, 'must be 1 or more'), currency }),
  reference: text(1, 128),
});

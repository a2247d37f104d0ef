/** zod schemas of the token API's wire format. Messages are the rule; validation.ts prefixes the field. */
import * as z from 'zod';
import { passesLuhn } from '../domain/card.js';
import { parseInstant, readInstant, type InstantForm } from './instant.js';
import type { BillingAddress as CardBillingAddress } from '../domain/token.js';
import type { CreateTokenInput } from '../domain/vault.js';

export const API_OPERATIONS = ['createToken', 'getToken', 'updateToken', 'deleteToken', 'queryTokens', 'sale', 'refund', 'partialRefund', 'reversal', 'paymentEvents', 'paymentQuery'] as const;
/** The operations of the simulated API, as scenario rules and the journal name them. */
export type ApiOperation = (typeof API_OPERATIONS)[number];

export interface BillingAddress {
  address1: string;
  address2?: string | undefined;
  address3?: string | undefined;
  postalCode: string;
  city: string;
  state?: string | undefined;
  countryCode: string;
}

/**
 * A `POST /tokens` body, as fixtures and scenario files preload it (the API itself also takes `null` for an
 * optional field, as absent; a file does not).
 */
export interface CreateTokenBody {
  paymentInstrument: {
    type: 'card/front';
    cardHolderName: string;
    cardNumber: string;
    cardExpiryDate: { month: number; year: number };
    billingAddress?: BillingAddress | undefined;
  };
  merchant: { entity: string };
  description?: string | undefined;
  /** ISO 8601 date-time with a time zone. */
  tokenExpiryDateTime?: string | undefined;
  namespace?: string | undefined;
  schemeTransactionReference?: string | undefined;
}

/** True only when A and B are the same type (not merely assignable to each other). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** `schemaFor<T>()(schema)`: the schema as it is, once the compiler has checked it yields exactly T, a published interface (decision 0047). */
export const schemaFor =
  <T>() =>
  <S extends z.ZodType>(schema: S & (Same<z.output<S>, T> extends true ? unknown : { yields: T })): S =>
    schema;

/** A string of min..max characters (messages name both bounds, as the spec's limits do). */
export function text(min: number, max: number): z.ZodString {
  const between = `must be between ${min} and ${max} characters`;
  return z.string().min(min, between).max(max, between);
}

/** An integer within bounds. Every numeric field of the API is an integer. */
function integer(min: number | undefined, max: number): z.ZodNumber {
  const range = min === undefined ? `at most ${max}` : `between ${min} and ${max}`;
  const base = z.int().max(max, `must be ${range}`);
  return min === undefined ? base : base.min(min, `must be ${range}`);
}

/** A string that must be one of the listed values: a wrong type is fieldMustBeString, else fieldHasInvalidValue. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<T[number]> {
  const allowed = new Set<string>(values);
  return z
    .string()
    .refine((v) => allowed.has(v), {
      error: `must be ${values.map((v) => `'${v}'`).join(' or ')}`,
      // The values, for the "did you mean" hint validation.ts adds to a misspelt one.
      params: { errorName: 'fieldHasInvalidValue', values: [...values] },
    })
    .meta({ enum: [...values] });
}

const countryCode = z
  .string()
  .length(2, 'must be exactly 2 characters')
  .regex(/^[A-Z]*$/, 'must be upper-case letters');

export const description = text(1, 255).regex(/^[^&<]*$/, 'must not contain & or <');
export const cardHolderName = text(1, 255);
export const schemeTransactionReference = text(1, 56).regex(/^[a-zA-Z0-9 ]*$/, 'must hold only letters, digits and spaces');

export const cardNumber = text(10, 19)
  .regex(/^[0-9]*$/, 'must hold only digits')
  .refine(passesLuhn, { error: 'must pass the Luhn check', params: { errorName: 'panFailedLuhnCheck' } });

/** Whether an optional field is given: an API body's `.nullish()` field may be `null`, meaning absent (decision 0032). */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** A schema as a file takes it: an object is strict, at any depth; an optional field is `.optional()`, not `.nullish()`. */
type FileForm<S> =
  S extends z.ZodOptional<z.ZodNullable<infer I extends z.ZodType>>
    ? z.ZodOptional<FileForm<I>>
    : S extends z.ZodObject<infer Shape>
      ? z.ZodObject<{ -readonly [K in keyof Shape]: FileForm<Shape[K]> }, z.core.$strict>
      : S;

/** An API body's schema as a file takes it: API bodies ignore unknown fields and read `null` as absent (contract 1.3); files refuse both (decision 0032). */
function fileForm<S extends z.ZodType>(schema: S): FileForm<S>;
function fileForm(schema: z.ZodType): z.ZodType {
  const inner: unknown = schema instanceof z.ZodOptional ? schema.unwrap() : undefined;
  if (inner instanceof z.ZodNullable) return fileForm(inner.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodObject) return z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([key, field]) => [key, fileForm(field as z.ZodType)])));
  return schema;
}

const addressLine = z.string().max(80, 'must be at most 80 characters');
export const billingAddress = z.object({
  address1: text(1, 80),
  address2: addressLine.nullish(),
  address3: addressLine.nullish(),
  postalCode: text(1, 15),
  city: text(1, 50),
  state: text(1, 30).nullish(),
  countryCode,
});
export const strictBillingAddress = schemaFor<BillingAddress>()(fileForm(billingAddress));

/** zod's optional keys may hold `undefined` (or, in API bodies, `null`); the domain's may only be absent. */
export function toBillingAddress(a: z.output<typeof billingAddress>): CardBillingAddress {
  return {
    address1: a.address1,
    ...(given(a.address2) && { address2: a.address2 }),
    ...(given(a.address3) && { address3: a.address3 }),
    postalCode: a.postalCode,
    city: a.city,
    ...(given(a.state) && { state: a.state }),
    countryCode: a.countryCode,
  };
}

export const createCardExpiryDate = z.object({ month: integer(1, 12), year: integer(1, 9999) });
/** On update the spec bounds the year only from above. */
export const updateCardExpiryDate = z.object({ month: integer(1, 12), year: integer(undefined, 9999) });

export const namespace = text(1, 64).regex(/^(?!_)[^\s&<]*$/, 'must not start with an underscore or contain spaces, & or <');

/** How the OpenAPI document (JSON Schema) names each form (decision 0024). */
const INSTANT_FORMATS: Record<InstantForm, Record<string, unknown>> = {
  dateTime: { format: 'date-time' },
  dateOrDateTime: { anyOf: [{ format: 'date-time' }, { format: 'date' }] },
};

/** A date-time text instant.ts reads in `form`; else dateHasInvalidFormat: `formatMessage`, or why the date does not exist. */
export function isoInstant(form: InstantForm, formatMessage: string): z.ZodString {
  return z
    .string()
    .superRefine((value, ctx) => {
      const reading = readInstant(value, form);
      if (reading.ok) return;
      const message = reading.reason === undefined ? formatMessage : `must be a date and time that exists: ${reading.reason}`;
      ctx.addIssue({ code: 'custom', message, params: { errorName: 'dateHasInvalidFormat' } });
    })
    .meta(INSTANT_FORMATS[form]);
}

export const nonEmpty = z.string().min(1, 'must not be empty');
const tokenExpiryDateTime = isoInstant('dateTime', 'must be an ISO 8601 date-time with a time zone');

export const createTokenBody = z.object({
  paymentInstrument: z.object({
    type: oneOf(['card/front']),
    cardHolderName,
    cardNumber,
    cardExpiryDate: createCardExpiryDate,
    billingAddress: billingAddress.nullish(),
  }),
  merchant: z.object({ entity: nonEmpty }),
  description: description.nullish(),
  tokenExpiryDateTime: tokenExpiryDateTime.nullish(),
  namespace: namespace.nullish(),
  schemeTransactionReference: schemeTransactionReference.nullish(),
});

/** A create body in a file (a fixtures or scenario token): the same fields, no others at any depth, and no nulls. */
export const strictCreateTokenBody = schemaFor<CreateTokenBody>()(fileForm(createTokenBody));

/** A validated create body (from the API, where `null` means absent, or from a file) in the vault's terms. */
export function toCreateInput(body: z.output<typeof createTokenBody>): CreateTokenInput {
  return {
    entity: body.merchant.entity,
    ...(given(body.namespace) && { namespace: body.namespace }),
    ...(given(body.description) && { description: body.description }),
    ...(given(body.tokenExpiryDateTime) && { expiresAt: parseInstant(body.tokenExpiryDateTime, 'dateTime') ?? Number.NaN }),
    ...(given(body.schemeTransactionReference) && { schemeTransactionReference: body.schemeTransactionReference }),
    card: toCard(body.paymentInstrument),
  };
}

/** A validated card (a create body's instrument, a sale's plain card) in the domain's terms. */
export function toCard(pi: Omit<z.output<typeof createTokenBody>['paymentInstrument'], 'type'>): CreateTokenInput['card'] {
  return {
    number: pi.cardNumber,
    holderName: pi.cardHolderName,
    expiryDate: { month: pi.cardExpiryDate.month, year: pi.cardExpiryDate.year },
    ...(given(pi.billingAddress) && { billingAddress: toBillingAddress(pi.billingAddress) }),
  };
}

/** PUT bodies per field link: bare values, except the two objects. */
export const updateBodies = {
  description,
  cardHolderName,
  cardExpiryDate: updateCardExpiryDate,
  billingAddress,
  schemeTransactionReference,
} as const;

export const clockAdvanceBody = z.object({
  by: z.union([z.string(), z.number()], { error: 'must be an ISO 8601 duration or a number of milliseconds' }),
});

export const clockSetBody = z.object({
  now: isoInstant('dateOrDateTime', 'must be an ISO 8601 date-time with a time zone, or a date'),
  frozen: z.boolean().optional(),
});

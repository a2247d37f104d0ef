/** zod schemas of what the API and /_sim answer (decisions 0057, 0061): the OpenAPI document's, which tests hold real answers to. */
import * as z from 'zod';
import { OPERATIONS, type JournalEntry } from '../control/journal.js';
import { PAYMENT_EVENT_TYPES } from '../domain/payment.js';
import type { WebhookDelivery, WebhookFlush, WebhookResend } from '../infra/webhook-types.js';
import { WEBHOOK_STATES } from '../infra/webhooks.js';
import { schemaFor, type BillingAddress } from '../wire/schemas.js';
import type { ControlPayment, ControlTenant } from './admin/handlers.js';

interface Link {
  href: string;
}
interface ExpiryDate {
  month: number;
  year: number;
}

/** A token as the API answers it (HAL): card data masked, unless a credential allowed to detokenize asked for it. */
export interface TokenResource {
  tokenPaymentInstrument: { type: 'card/tokenized'; href: string };
  tokenId: string;
  description: string;
  /** ISO 8601, UTC. */
  tokenExpiryDateTime: string;
  namespace?: string | undefined;
  schemeTransactionReference?: string | undefined;
  paymentInstrument: {
    type: 'card/masked' | 'card/front';
    cardNumber: string;
    cardExpiryDate: ExpiryDate;
    cardHolderName: string;
    billingAddress?: BillingAddress | undefined;
    networkType: string;
    last4Digits: string;
    /** In the 201 answer. */
    countryCode?: string | undefined;
    credit?: null | undefined;
  };
  /** In the 409 answer and on the conflicts link. */
  conflicts?:
    | {
        paymentInstrument?: { cardHolderName?: string | undefined; cardExpiryDate?: ExpiryDate | undefined; billingAddress?: BillingAddress | undefined } | undefined;
        schemeTransactionReference?: string | undefined;
        conflictsExpiryDateTime: string;
      }
    | undefined;
  _links: {
    'tokens:token': Link;
    'tokens:description': Link;
    'tokens:cardHolderName': Link;
    'tokens:cardExpiryDate': Link;
    'tokens:billingAddress': Link;
    'tokens:schemeTransactionReference': Link;
    'tokens:conflicts'?: Link | undefined;
    'tokens:networkToken'?: Link | undefined;
    curies: { href: string; name: 'tokens'; templated: true }[];
  };
}

/** A token as the control plane lists it (`/_sim/tokens`): the API's view of it, card data masked, and its tenant. */
export interface ControlToken extends TokenResource {
  tenant: string;
}

const href = z.object({ href: z.string() });
/** ISO 8601 in UTC (formatInstant). */
const instant = z.string().meta({ format: 'date-time' });
const count = z.int().min(0);
const eventType = z.enum(PAYMENT_EVENT_TYPES);
const expiryDate = z.object({ month: z.int(), year: z.int() });
const address = z.object({
  address1: z.string(),
  address2: z.string().optional(),
  address3: z.string().optional(),
  postalCode: z.string(),
  city: z.string(),
  state: z.string().optional(),
  countryCode: z.string(),
});

export const errorResponse = z
  .object({
    errorName: z.string(),
    message: z.string(),
    headerName: z.string().optional(),
    validationErrors: z.array(z.object({ errorName: z.string(), message: z.string(), jsonPath: z.string().optional() })).optional(),
  })
  .meta({ description: 'The standard error body' });

export const tokenResponse = schemaFor<TokenResource>()(
  z
    .object({
      tokenPaymentInstrument: z.object({ type: z.literal('card/tokenized'), href: z.string() }),
      tokenId: z.string().regex(/^[0-9A-HJ-NP-Z]{15,21}$/),
      description: z.string(),
      tokenExpiryDateTime: instant,
      namespace: z.string().optional(),
      schemeTransactionReference: z.string().optional(),
      paymentInstrument: z.object({
        type: z.enum(['card/masked', 'card/front']).meta({ description: 'card/front (the full card number) only for `Accept: <token type>; masked=false` from a credential allowed to detokenize' }),
        cardNumber: z.string().regex(/^[0-9*]*$/),
        cardExpiryDate: expiryDate,
        cardHolderName: z.string(),
        billingAddress: address.optional(),
        networkType: z.string(),
        last4Digits: z.string().length(4),
        countryCode: z.string().optional().meta({ description: 'In the 201 answer' }),
        credit: z.null().optional().meta({ description: 'In the 201 answer' }),
      }),
      conflicts: z
        .object({
          paymentInstrument: z.object({ cardHolderName: z.string().optional(), cardExpiryDate: expiryDate.optional(), billingAddress: address.optional() }).optional(),
          schemeTransactionReference: z.string().optional(),
          conflictsExpiryDateTime: instant,
        })
        .optional()
        .meta({ description: 'In the 409 answer and on the conflicts link' }),
      _links: z.object({
        'tokens:token': href,
        'tokens:description': href,
        'tokens:cardHolderName': href,
        'tokens:cardExpiryDate': href,
        'tokens:billingAddress': href,
        'tokens:schemeTransactionReference': href,
        'tokens:conflicts': href.optional(),
        'tokens:networkToken': href.optional(),
        curies: z.array(z.object({ href: z.string(), name: z.literal('tokens'), templated: z.literal(true) })),
      }),
    })
    .meta({ description: 'A token (HAL)' }),
);

const riskFactor = z.object({ risk: z.enum(['not_checked', 'not_matched', 'not_supplied']), detail: z.enum(['address', 'postcode']) });

/** The links of a payment (HAL): the actions its state allows now, its events, the curies. */
export const paymentLinks = z
  .object({
    'payments:refund': href.optional(),
    'payments:partialRefund': href.optional(),
    'payments:reversal': href.optional(),
    'payments:events': href,
    curies: z.array(z.object({ name: z.literal('payments'), href: z.string(), templated: z.literal(true) })),
  })
  .meta({ description: 'Links to the actions the payment allows now, and to its events' });

export const saleResponse = z
  .object({
    outcome: z.enum(['sentForSettlement', 'refused']),
    issuer: z.object({ authorizationCode: z.string() }).optional(),
    scheme: z.object({ reference: z.string() }),
    paymentInstrument: z.object({
      type: z.literal('card/plain+masked'),
      card: z.object({
        number: z.object({ bin: z.string(), last4Digits: z.string() }),
        paymentAccountReference: z.string().length(29),
        countryCode: z.string(),
        fundingType: z.string(),
        brand: z.string(),
        expiryDate: expiryDate,
      }),
    }),
    riskFactors: z.array(riskFactor).optional(),
    refusalCode: z.string().optional(),
    refusalDescription: z.string().optional(),
    _links: paymentLinks,
  })
  .meta({ description: 'The outcome of a card-on-file sale, with links to what may follow (an approved sale) or to its events (a refused one)' });

export const paymentActionResponse = z.object({ _links: paymentLinks }).meta({ description: 'A refund, partial refund or reversal accepted: links to what may follow' });

export const paymentEventsResponse = z
  .object({
    lastEvent: eventType,
    _links: paymentLinks,
  })
  .meta({ description: 'The last event of a payment by the virtual now, and what may follow' });

const paymentSummary = z.object({
  paymentId: z.string().meta({ description: 'The opaque ref that ends the payment\u2019s links; GET /paymentQueries/payments/{paymentId} answers it' }),
  timestamp: instant.meta({ description: 'When the sale was made (virtual time)' }),
  transactionReference: z.string(),
  entity: z.string(),
  outcome: saleResponse.shape.outcome,
  lastEvent: paymentEventsResponse.shape.lastEvent,
  value: z.object({ amount: z.int().min(0), currency: z.string() }),
  _links: paymentLinks.extend({ self: href }),
});

export const paymentQueryResponse = paymentSummary
  .extend({ events: z.array(z.object({ eventName: paymentEventsResponse.shape.lastEvent, timestamp: instant })).meta({ description: 'What happened, oldest first' }) })
  .meta({ description: 'A payment, its events by the virtual now, and links to what it allows now' });

export const paymentQueryListResponse = z
  .object({ _embedded: z.object({ payments: z.array(paymentSummary) }) })
  .meta({ description: 'The tenant\u2019s payments with this transactionReference (any merchant entity), newest first; none when it is unknown' });

export const clockResponse = z.object({ now: instant, frozen: z.boolean() });

export const controlTokenResponse = schemaFor<ControlToken>()(tokenResponse.extend({ tenant: z.string().min(1) }).meta({ description: 'A token (HAL) and its tenant' }));

/* What /_sim answers besides, each checked against its published type by the compiler. */
export const webhookDelivery = schemaFor<WebhookDelivery>()(
  z.strictObject({
    seq: z.int().min(1),
    id: z.string().meta({ description: 'Stable and unique per store: what POST /_sim/webhooks/{id}/resend names' }),
    eventId: z.string(),
    type: z.string(),
    rule: z.string().nullable().meta({ description: 'The scenario rule that duplicated, held or dropped it' }),
    url: z.string(),
    tenant: z.string(),
    attempts: z.int().min(0),
    lastStatus: z.int().nullable().meta({ description: 'The HTTP status of the last attempt; null before one, or on a network error or timeout' }),
    lastError: z.string().nullable(),
    state: z.enum(WEBHOOK_STATES),
    enqueuedAt: instant,
    lastAttemptAt: instant.nullable(),
    finishedAt: instant.nullable(),
  }),
);

const headers = z.record(z.string(), z.string());
export const journalEntry = schemaFor<JournalEntry>()(
  z.strictObject({
    seq: z.int().min(1),
    tenant: z.string().nullable(),
    operation: z.enum(OPERATIONS),
    method: z.string(),
    path: z.string(),
    query: z.string().optional(),
    status: z.int().min(0).max(599).meta({ description: '0: unanswered' }),
    errorName: z.string().optional(),
    correlationId: z.string(),
    durationMs: z.number().min(0),
    rule: z.string().nullable(),
    virtualTime: instant,
    realTime: instant,
    requestHeaders: headers,
    requestBody: z.unknown().optional().meta({ description: 'JSON, masked; a note when too large to keep' }),
    requestText: z.string().optional(),
    responseHeaders: headers,
    responseBody: z.unknown().optional(),
    responseText: z.string().optional(),
    lostAnswer: z
      .strictObject({ as: z.enum(['connectionReset', 'noResponse', 'internalError']), status: z.int(), body: z.unknown().optional(), text: z.string().optional() })
      .optional()
      .meta({ description: 'With a lostAnswer rule: the answer of the work done, which the client never got' }),
  }),
);

export const webhookFlush = schemaFor<WebhookFlush>()(z.strictObject({ flushed: z.boolean(), pending: count }));
export const webhookResend = schemaFor<WebhookResend>()(z.strictObject({ id: z.string(), eventId: z.string(), resendOf: z.string() }));

export const controlPayment = schemaFor<ControlPayment>()(
  z.strictObject({
    tenant: z.string(),
    paymentId: z.string(),
    transactionReference: z.string(),
    outcome: saleResponse.shape.outcome,
    lastEvent: eventType,
    amount: count,
    currency: z.string(),
    refunded: count,
    allowedActions: z.array(z.enum(['refund', 'partialRefund', 'reversal'])),
    createdAt: instant,
    events: z.array(
      z.strictObject({
        type: eventType,
        at: instant,
        amount: count,
        reference: z.string().optional(),
        refusal: z.strictObject({ code: z.string(), description: z.string() }).optional(),
      }),
    ),
  }),
);

export const controlTenant = schemaFor<ControlTenant>()(
  z.strictObject({
    name: z.string(),
    clock: z.strictObject({ now: instant, frozen: z.boolean() }),
    ownClock: z.boolean().meta({ description: 'The tenant has its own clock (else it follows the shared one)' }),
    tokens: count.meta({ description: 'Live tokens' }),
    payments: count,
  }),
);

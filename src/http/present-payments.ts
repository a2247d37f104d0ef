/**
 * How payments look on the wire (contract 3.2): the HAL links of a sale's answer, of a 202 and of the events
 * resource, the vendor's webhook event body, and payment queries' answers (contract 4.4, decision 0057) in the
 * vendor's Payment Queries v1 shape.
 */
import { allowedActions, lastEventOf, saleOutcomeOf, type Payment, type PaymentAction, type PaymentEvent } from '../domain/payment.js';
import { formatInstant } from '../wire/instant.js';
import { PAYMENT_QUERIES_ROUTE, linkPath } from './routes.js';
import type { PaymentRefPurpose, RefCodec } from '../infra/refs.js';

export interface PaymentLinkContext {
  baseUrl: string;
  refs: RefCodec<PaymentRefPurpose>;
}

/** Where each link's path goes, before the payment's ref. */
export const PAYMENT_PATHS: Readonly<Record<PaymentAction | 'events', string>> = {
  events: linkPath('paymentEvents'),
  refund: linkPath('refund'),
  partialRefund: linkPath('partialRefund'),
  reversal: linkPath('reversal'),
};

const RELS: Readonly<Record<PaymentAction, string>> = { refund: 'payments:refund', partialRefund: 'payments:partialRefund', reversal: 'payments:reversal' };

/** The ref that ends every link of the payment: also its `paymentId` in payment queries (decision 0057). */
export const paymentRefOf = (ctx: PaymentLinkContext, payment: Payment): string => ctx.refs.encode({ purpose: 'payment', tenant: payment.tenant, tokenId: payment.paymentId });

/** The link of a payment's events (webhooks link there). */
export const paymentEventsHref = (ctx: PaymentLinkContext, payment: Payment): string => `${ctx.baseUrl}${PAYMENT_PATHS.events}${paymentRefOf(ctx, payment)}`;

/**
 * The actions the payment allows now, its events, and the curies, as JSON text: written directly, since
 * every sale answers them (the base URL, which comes from the Host header, is escaped as JSON; the paths,
 * rels and the base64url ref need no escaping).
 */
export function paymentLinksJson(ctx: PaymentLinkContext, payment: Payment): string {
  const ref = paymentRefOf(ctx, payment);
  const base = JSON.stringify(ctx.baseUrl).slice(1, -1);
  let json = '{';
  for (const action of allowedActions(payment)) json += `"${RELS[action]}":{"href":"${base}${PAYMENT_PATHS[action]}${ref}"},`;
  return `${json}"payments:events":{"href":"${base}${PAYMENT_PATHS.events}${ref}"},"curies":[{"name":"payments","href":"${base}/rels/payments/{rel}","templated":true}]}`;
}

/** A JSON object's text with `_links` added as its last member (the object's text must not be `{}`). */
export const withLinks = (objectJson: string, linksJson: string): string => `${objectJson.slice(0, -1)},"_links":${linksJson}}`;

/** The answer of a refund, partial refund or reversal (202): the links to what may follow. */
export const paymentActionJson = (ctx: PaymentLinkContext, payment: Payment): string => `{"_links":${paymentLinksJson(ctx, payment)}}`;

/** `GET` of the events ref: the last event by now, and what may follow. */
export const paymentEventsJson = (ctx: PaymentLinkContext, payment: Payment): string =>
  `{"lastEvent":"${lastEventOf(payment)}","_links":${paymentLinksJson(ctx, payment)}}`;

/** The vendor's event notification, stamped with the event's virtual time. */
export function webhookEventBody(ctx: PaymentLinkContext, payment: Payment, event: PaymentEvent, eventId: string): Record<string, unknown> {
  const timestamp = formatInstant(event.at);
  return {
    eventId,
    eventTimestamp: timestamp,
    eventDetails: {
      classification: 'payment',
      transactionReference: payment.transactionReference,
      type: event.type,
      date: timestamp.slice(0, 10),
      ...(event.reference !== undefined && { reference: event.reference }),
      amount: { value: event.amount, currencyCode: payment.currency },
      // A failed refund's refusal; a refused sale's (kept on its `refused` event) is the sale answer's, not a refund's.
      ...(event.type === 'refundFailed' && event.refusal && { refund: { refusal: { code: event.refusal.code, description: event.refusal.description } } }),
      _links: { payment: { href: paymentEventsHref(ctx, payment) } },
    },
  };
}

/** `GET /paymentQueries/payments/{paymentId}` of a payment: its paymentId is the ref that ends its links. */
export const paymentQueryHref = (ctx: PaymentLinkContext, payment: Payment): string => `${ctx.baseUrl}${PAYMENT_QUERIES_ROUTE.pattern}/${paymentRefOf(ctx, payment)}`;

/** One payment as a query answers it; `withEvents` for GET of its `self` link. */
function itemJson(ctx: PaymentLinkContext, payment: Payment, withEvents: boolean): string {
  const item = {
    paymentId: paymentRefOf(ctx, payment),
    timestamp: formatInstant(payment.createdAt),
    transactionReference: payment.transactionReference,
    entity: payment.entity,
    outcome: saleOutcomeOf(payment),
    lastEvent: lastEventOf(payment),
    value: { amount: payment.amount, currency: payment.currency },
    ...(withEvents && { events: payment.events.map((event) => ({ eventName: event.type, timestamp: formatInstant(event.at) })) }),
  };
  // `self` first, then the sale's links (they begin with `{`).
  const links = `{"self":{"href":${JSON.stringify(paymentQueryHref(ctx, payment))}},${paymentLinksJson(ctx, payment).slice(1)}`;
  return withLinks(JSON.stringify(item), links);
}

/** `GET /paymentQueries/payments?transactionReference=`: the payments found (maybe none), newest first as given. */
export const paymentQueryListJson = (ctx: PaymentLinkContext, payments: readonly Payment[]): string =>
  `{"_embedded":{"payments":[${payments.map((payment) => itemJson(ctx, payment, false)).join(',')}]}}`;

/** `GET /paymentQueries/payments/{paymentId}`: the payment's summary and its events so far, oldest first. */
export const paymentQueryJson = (ctx: PaymentLinkContext, payment: Payment): string => itemJson(ctx, payment, true);

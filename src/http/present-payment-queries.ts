/**
 * How payment queries answer (contract 4.4, decision 0057), in the vendor's Payment Queries v1 shape: a payment's
 * summary with its `self` link and the links its sale answered with (the actions it allows now, its events).
 */
import { lastEventOf, saleOutcomeOf, type Payment } from '../domain/payment.js';
import { formatInstant } from '../wire/instant.js';
import { paymentLinksJson, paymentRefOf, withLinks, type PaymentLinkContext } from './present-payments.js';
import { PAYMENT_QUERIES_ROUTE } from './routes.js';

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

/** Domain → wire: tokens, sales and payments (contracts 3.2, 4.4) with masked cards, ISO dates and HAL links with opaque refs. */
import { lastFourDigits, maskCardNumber } from '../domain/card.js';
import { allowedActions, lastEventOf, saleOutcomeOf, type Payment, type PaymentAction, type PaymentEvent } from '../domain/payment.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardData } from '../wire/mask.js';
import { PAYMENT_QUERIES_ROUTE, TOKEN_PATH, linkPath } from './routes.js';
import type { SaleResult } from '../domain/sale.js';
import type { PendingConflict, Token } from '../domain/token.js';
import { REF_PURPOSES, type PaymentRefPurpose, type RefCodec, type RefPurpose } from '../infra/refs.js';
import { BoundedMap } from '../infra/bounded-map.js';

export interface LinkContext<P extends string = RefPurpose> {
  baseUrl: string;
  refs: RefCodec<P>;
}

/** The base URL escaped as JSON (it comes from the Host header); the paths, rels and refs after it need none. */
const jsonBase = (ctx: LinkContext<string>): string => JSON.stringify(ctx.baseUrl).slice(1, -1);

/** A JSON object's text with `_links` added as its last member (the object's text must not be `{}`). */
export const withLinks = (objectJson: string, linksJson: string): string => `${objectJson.slice(0, -1)},"_links":${linksJson}}`;

export function tokenHref(ctx: LinkContext, token: Token): string {
  return `${ctx.baseUrl}${TOKEN_PATH}${ctx.refs.encode({ purpose: 'token', tenant: token.tenant, tokenId: token.tokenId })}`;
}

/** The link relations of a token's fields, with the index of their ref in REF_PURPOSES. */
const FIELD_LINKS = REF_PURPOSES.flatMap((purpose, i) => (purpose === 'token' || purpose === 'conflicts' ? [] : [[`tokens:${purpose}`, i] as const]));
const TOKEN_REF = REF_PURPOSES.indexOf('token');
const CONFLICTS_REF = REF_PURPOSES.indexOf('conflicts');

/** Which variant of the representation: it decides the extra fields and links. */
export interface TokenView {
  /** 201: `countryCode` and `credit: null` in the masked card. */
  created?: boolean;
  /** GET: the `tokens:networkToken` link. */
  retrieved?: boolean;
  /** 409 and GET on the conflicts ref: `conflicts` and the `tokens:conflicts` link. */
  conflict?: PendingConflict;
  /** Detokenized (`masked=false`, decision 0031): `card/front` with the full number, never cached. */
  unmasked?: boolean;
}

/** Undefined members are left out when the representation is written (JSON.stringify), as the wire wants. */
function presentConflicts({ values, expiresAt }: PendingConflict): Record<string, unknown> {
  const { cardHolderName, cardExpiryDate, billingAddress, schemeTransactionReference } = values;
  const instrument = cardHolderName !== undefined || cardExpiryDate !== undefined || billingAddress !== undefined;
  return {
    paymentInstrument: instrument ? { cardHolderName, cardExpiryDate, billingAddress } : undefined,
    schemeTransactionReference,
    conflictsExpiryDateTime: formatInstant(expiresAt),
  };
}

/** Everything of the representation but `_links`, in the wire's key order. */
function tokenData(token: Token, href: string, view: TokenView): Record<string, unknown> {
  const { card } = token;
  const body: Record<string, unknown> = {
    tokenPaymentInstrument: { type: 'card/tokenized', href },
    tokenId: token.tokenId,
    description: token.description,
    tokenExpiryDateTime: formatInstant(token.expiresAt),
  };
  if (token.namespace !== undefined) body.namespace = token.namespace;
  if (token.schemeTransactionReference !== undefined) body.schemeTransactionReference = token.schemeTransactionReference;
  const instrument: Record<string, unknown> = {
    type: view.unmasked ? 'card/front' : 'card/masked',
    cardNumber: view.unmasked ? card.number : maskCardNumber(card.number),
    cardExpiryDate: { month: card.expiryDate.month, year: card.expiryDate.year },
    cardHolderName: card.holderName,
  };
  if (card.billingAddress) instrument.billingAddress = card.billingAddress;
  instrument.networkType = card.network;
  instrument.last4Digits = lastFourDigits(card.number);
  if (view.created) {
    instrument.countryCode = card.countryCode;
    instrument.credit = null;
  }
  body.paymentInstrument = instrument;
  if (view.conflict) body.conflicts = presentConflicts(view.conflict);
  return body;
}

function linksJson(token: Token, ctx: LinkContext, view: TokenView): string {
  const refs = ctx.refs.encodeAll(token.tenant, token.tokenId);
  const base = jsonBase(ctx);
  const link = (i: number): string => `{"href":"${base}${TOKEN_PATH}${refs[i] ?? ''}"}`;
  let json = `{"tokens:token":${link(TOKEN_REF)}`;
  for (const [rel, i] of FIELD_LINKS) json += `,"${rel}":${link(i)}`;
  if (view.conflict) json += `,"tokens:conflicts":${link(CONFLICTS_REF)}`;
  if (view.retrieved) json += `,"tokens:networkToken":{"href":"${base}/tokens/network"}`;
  return `${json},"curies":[{"href":"${base}/rels/tokens/{rel}.json","name":"tokens","templated":true}]}`;
}

export function tokenJson(token: Token, ctx: LinkContext, view: TokenView = {}): string {
  return withLinks(JSON.stringify(tokenData(token, tokenHref(ctx, token), view)), linksJson(token, ctx, view));
}

/** How many served representations one simulator keeps: bounded, so a vault of many tokens keeps no copy of each. */
const READS_KEPT = 2_000;

export class ReadCache {
  private readonly kept = new BoundedMap<Token, { key: string; json: string }>(READS_KEPT);

  /** Kept while the token's revision, expiry, open conflict and the base URL stay the same. */
  tokenJson(token: Token, ctx: LinkContext, view: TokenView): string {
    // A full card number is written afresh each time and never kept: no masked read can be served it.
    if (view.unmasked) return tokenJson(token, ctx, view);
    const key = `${view.conflict ? `x${view.conflict.expiresAt}` : ''}|${token.revision}|${token.expiresAt}|${ctx.baseUrl}`;
    const hit = this.kept.get(token);
    if (hit !== undefined && hit.key === key) return hit.json;
    const json = tokenJson(token, ctx, view);
    return this.kept.remember(token, { key, json }).json;
  }
}

/** The 201 body of a sale: masked card, issuer and scheme references, risk factors, refusal. */
export function presentSale(result: SaleResult): Record<string, unknown> {
  const { card } = result;
  return {
    outcome: result.outcome,
    ...(result.authorizationCode !== undefined && { issuer: { authorizationCode: result.authorizationCode } }),
    scheme: { reference: result.schemeReference },
    paymentInstrument: {
      type: 'card/plain+masked',
      card: {
        number: { bin: card.number.slice(0, 6), last4Digits: lastFourDigits(card.number) },
        paymentAccountReference: card.paymentAccountReference,
        countryCode: card.countryCode,
        fundingType: card.fundingType,
        brand: card.network.toLowerCase(),
        expiryDate: { month: card.expiryDate.month, year: card.expiryDate.year },
      },
    },
    ...(result.riskFactors.length > 0 && { riskFactors: result.riskFactors }),
    ...(result.refusal && { refusalCode: result.refusal.code, refusalDescription: result.refusal.description }),
  };
}

/** Tokens as `GET /_sim/tokens` and the library list them: with their tenant, free text masked (not so in the API). */
export function controlTokenList(tokens: readonly Token[], ctx: LinkContext): unknown[] {
  const present = (t: Token): Record<string, unknown> => ({ tenant: t.tenant, ...tokenData(t, tokenHref(ctx, t), {}), _links: JSON.parse(linksJson(t, ctx, {})) as unknown });
  return maskCardData(tokens.map(present)) as unknown[];
}

type PaymentLinkContext = LinkContext<PaymentRefPurpose>;

/** Where each payment link's path goes, before the payment's ref. */
const PAYMENT_PATHS: Readonly<Record<PaymentAction | 'events', string>> = {
  events: linkPath('paymentEvents'),
  refund: linkPath('refund'),
  partialRefund: linkPath('partialRefund'),
  reversal: linkPath('reversal'),
};

/** The ref that ends every link of the payment: also its `paymentId` in payment queries (decision 0057). */
const paymentRefOf = (ctx: PaymentLinkContext, payment: Payment): string => ctx.refs.encode({ purpose: 'payment', tenant: payment.tenant, tokenId: payment.paymentId });

/** As JSON text: the actions the payment allows now (`payments:<action>`), its events, and the curies. */
export function paymentLinksJson(ctx: PaymentLinkContext, payment: Payment): string {
  const ref = paymentRefOf(ctx, payment);
  const base = jsonBase(ctx);
  let json = '{';
  for (const action of allowedActions(payment)) json += `"payments:${action}":{"href":"${base}${PAYMENT_PATHS[action]}${ref}"},`;
  return `${json}"payments:events":{"href":"${base}${PAYMENT_PATHS.events}${ref}"},"curies":[{"name":"payments","href":"${base}/rels/payments/{rel}","templated":true}]}`;
}

/** The vendor's event notification, stamped with the event's virtual time; it links to the payment's events. */
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
      _links: { payment: { href: `${ctx.baseUrl}${PAYMENT_PATHS.events}${paymentRefOf(ctx, payment)}` } },
    },
  };
}

/** `GET /paymentQueries/payments/{paymentId}`: the payment and its events so far; without them, as a query lists it. */
export function paymentQueryJson(ctx: PaymentLinkContext, payment: Payment, withEvents = true): string {
  const paymentId = paymentRefOf(ctx, payment);
  const item = {
    paymentId,
    timestamp: formatInstant(payment.createdAt),
    transactionReference: payment.transactionReference,
    entity: payment.entity,
    outcome: saleOutcomeOf(payment),
    lastEvent: lastEventOf(payment),
    value: { amount: payment.amount, currency: payment.currency },
    ...(withEvents && { events: payment.events.map((event) => ({ eventName: event.type, timestamp: formatInstant(event.at) })) }),
  };
  // `self` first, then the sale's links (they begin with `{`).
  const self = JSON.stringify(`${ctx.baseUrl}${PAYMENT_QUERIES_ROUTE.pattern}/${paymentId}`);
  return withLinks(JSON.stringify(item), `{"self":{"href":${self}},${paymentLinksJson(ctx, payment).slice(1)}`);
}

/** `GET /paymentQueries/payments?transactionReference=`: the payments found (maybe none), newest first as given. */
export const paymentQueryListJson = (ctx: PaymentLinkContext, payments: readonly Payment[]): string =>
  `{"_embedded":{"payments":[${payments.map((payment) => paymentQueryJson(ctx, payment, false)).join(',')}]}}`;

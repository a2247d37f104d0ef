/** Domain → wire: masked card, ISO dates, HAL links with opaque refs. */
import { lastFourDigits, maskCardNumber } from '../domain/card.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardData } from '../wire/mask.js';
import { TOKEN_PATH } from './routes.js';
import type { SaleResult } from '../domain/sale.js';
import type { PendingConflict, Token } from '../domain/token.js';
import { REF_PURPOSES, type RefCodec } from '../infra/refs.js';

export interface LinkContext {
  baseUrl: string;
  refs: RefCodec;
}

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
  /**
   * Detokenized (`masked=false`, decision 0031): `card/front` with the full card number. Never kept by a
   * ReadCache, so a cached string is always a masked one.
   */
  unmasked?: boolean;
}

function presentConflicts(conflict: PendingConflict): Record<string, unknown> {
  const { cardHolderName, cardExpiryDate, billingAddress, schemeTransactionReference } = conflict.values;
  const out: Record<string, unknown> = {};
  if (cardHolderName !== undefined || cardExpiryDate !== undefined || billingAddress !== undefined) {
    const paymentInstrument: Record<string, unknown> = {};
    if (cardHolderName !== undefined) paymentInstrument.cardHolderName = cardHolderName;
    if (cardExpiryDate !== undefined) paymentInstrument.cardExpiryDate = cardExpiryDate;
    if (billingAddress !== undefined) paymentInstrument.billingAddress = billingAddress;
    out.paymentInstrument = paymentInstrument;
  }
  if (schemeTransactionReference !== undefined) out.schemeTransactionReference = schemeTransactionReference;
  out.conflictsExpiryDateTime = formatInstant(conflict.expiresAt);
  return out;
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

/** The `_links` object as JSON text, written directly: refs are base64url and the base is escaped once. */
function linksJson(token: Token, ctx: LinkContext, view: TokenView): string {
  const refs = ctx.refs.encodeAll(token.tenant, token.tokenId);
  const base = JSON.stringify(ctx.baseUrl).slice(1, -1);
  const link = (i: number): string => `{"href":"${base}${TOKEN_PATH}${refs[i] ?? ''}"}`;
  let json = `{"tokens:token":${link(TOKEN_REF)}`;
  for (const [rel, i] of FIELD_LINKS) json += `,"${rel}":${link(i)}`;
  if (view.conflict) json += `,"tokens:conflicts":${link(CONFLICTS_REF)}`;
  if (view.retrieved) json += `,"tokens:networkToken":{"href":"${base}/tokens/network"}`;
  return `${json},"curies":[{"href":"${base}/rels/tokens/{rel}.json","name":"tokens","templated":true}]}`;
}

/** The representation as JSON text. */
export function tokenJson(token: Token, ctx: LinkContext, view: TokenView = {}): string {
  const data = JSON.stringify(tokenData(token, tokenHref(ctx, token), view));
  return `${data.slice(0, -1)},"_links":${linksJson(token, ctx, view)}}`;
}

/** How many served representations one simulator keeps: bounded, so a vault of many tokens keeps no copy of each. */
const READS_KEPT = 2_000;

export interface ReadCache {
  /**
   * The JSON text of a read (GET) representation, kept while the token's data (its revision), expiry, the
   * open conflict and the base URL stay the same: a client reading the same token again costs no work.
   */
  tokenJson(token: Token, ctx: LinkContext, view: TokenView): string;
}

/** A cache of one simulator's read representations (never shared between simulators). */
export function createReadCache(): ReadCache {
  const kept = new Map<Token, { key: string; json: string }>();
  return {
    tokenJson(token, ctx, view) {
      // A full card number is written afresh each time and never kept: no masked read can be served it.
      if (view.unmasked) return tokenJson(token, ctx, view);
      const key = `${view.conflict ? `x${view.conflict.expiresAt}` : ''}|${token.revision}|${token.expiresAt}|${ctx.baseUrl}`;
      const hit = kept.get(token);
      if (hit !== undefined && hit.key === key) return hit.json;
      const json = tokenJson(token, ctx, view);
      if (kept.size >= READS_KEPT) kept.clear();
      kept.set(token, { key, json });
      return json;
    },
  };
}

/** The body of a token query: `{"_embedded": {"tokens": [...]}}`, each token as `read` writes it. */
export const tokenListJson = (tokens: readonly Token[], read: (token: Token) => string): string =>
  `{"_embedded":{"tokens":[${tokens.map((token) => read(token)).join(',')}]}}`;

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

/**
 * Tokens as the control plane lists them (`GET /_sim/tokens`, the library's `tokens()`): each with its
 * tenant, free text (descriptions, addresses) masked, unlike in the API's own answers.
 */
export function controlTokenList(tokens: readonly Token[], ctx: LinkContext): unknown[] {
  const present = (t: Token): Record<string, unknown> => ({ tenant: t.tenant, ...tokenData(t, tokenHref(ctx, t), {}), _links: JSON.parse(linksJson(t, ctx, {})) as unknown });
  return maskCardData(tokens.map(present)) as unknown[];
}

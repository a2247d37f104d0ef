/** Domain → wire: masked card, ISO dates, HAL links with opaque refs. */
import { lastFourDigits, maskCardNumber } from '../domain/card.js';
import { formatInstant } from '../domain/instant.js';
import type { SaleResult } from '../domain/sale.js';
import type { PendingConflict, Token } from '../domain/token.js';
import type { RefCodec, RefPurpose } from '../infra/refs.js';

export interface LinkContext {
  baseUrl: string;
  refs: RefCodec;
}

export function tokenHref(ctx: LinkContext, token: Token, purpose: RefPurpose = 'token'): string {
  return `${ctx.baseUrl}/tokens/${ctx.refs.encode({ purpose, tenant: token.tenant, tokenId: token.tokenId })}`;
}

const FIELD_LINKS = [
  ['tokens:description', 'description'],
  ['tokens:cardHolderName', 'cardHolderName'],
  ['tokens:cardExpiryDate', 'cardExpiryDate'],
  ['tokens:billingAddress', 'billingAddress'],
  ['tokens:schemeTransactionReference', 'schemeTransactionReference'],
] as const satisfies readonly (readonly [string, RefPurpose])[];

/** Which variant of the representation: it decides the extra fields and links. */
export interface TokenView {
  /** 201: `countryCode` and `credit: null` in the masked card. */
  created?: boolean;
  /** GET: the `tokens:networkToken` link. */
  retrieved?: boolean;
  /** 409 and GET on the conflicts ref: `conflicts` and the `tokens:conflicts` link. */
  conflict?: PendingConflict;
}

function presentConflicts(conflict: PendingConflict): Record<string, unknown> {
  const { cardHolderName, cardExpiryDate, billingAddress, schemeTransactionReference } = conflict.values;
  const paymentInstrument = {
    ...(cardHolderName !== undefined && { cardHolderName }),
    ...(cardExpiryDate !== undefined && { cardExpiryDate }),
    ...(billingAddress !== undefined && { billingAddress }),
  };
  return {
    ...(Object.keys(paymentInstrument).length > 0 && { paymentInstrument }),
    ...(schemeTransactionReference !== undefined && { schemeTransactionReference }),
    conflictsExpiryDateTime: formatInstant(conflict.expiresAt),
  };
}

export function presentToken(token: Token, ctx: LinkContext, view: TokenView = {}): Record<string, unknown> {
  const href = tokenHref(ctx, token);
  const { card } = token;
  const links: Record<string, unknown> = { 'tokens:token': { href } };
  for (const [rel, purpose] of FIELD_LINKS) links[rel] = { href: tokenHref(ctx, token, purpose) };
  if (view.conflict) links['tokens:conflicts'] = { href: tokenHref(ctx, token, 'conflicts') };
  if (view.retrieved) links['tokens:networkToken'] = { href: `${ctx.baseUrl}/tokens/network` };
  links.curies = [{ href: `${ctx.baseUrl}/rels/tokens/{rel}.json`, name: 'tokens', templated: true }];

  return {
    tokenPaymentInstrument: { type: 'card/tokenized', href },
    tokenId: token.tokenId,
    description: token.description,
    tokenExpiryDateTime: formatInstant(token.expiresAt),
    ...(token.namespace !== undefined && { namespace: token.namespace }),
    ...(token.schemeTransactionReference !== undefined && { schemeTransactionReference: token.schemeTransactionReference }),
    paymentInstrument: {
      type: 'card/masked',
      cardNumber: maskCardNumber(card.number),
      cardExpiryDate: { month: card.expiryDate.month, year: card.expiryDate.year },
      cardHolderName: card.holderName,
      ...(card.billingAddress && { billingAddress: card.billingAddress }),
      networkType: card.network,
      last4Digits: lastFourDigits(card.number),
      ...(view.created && { countryCode: card.countryCode, credit: null }),
    },
    ...(view.conflict && { conflicts: presentConflicts(view.conflict) }),
    _links: links,
  };
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

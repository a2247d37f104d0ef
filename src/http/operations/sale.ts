/** POST /payments/sales/migrateCardOnFile (v5): parse, resolve a token href, call the sale, present. */
import type { Payments } from '../../domain/payment.js';
import type { Sales, SaleInstrument } from '../../domain/sale.js';
import type { PaymentRefPurpose, RefCodec } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { saleBody, type SaleBody } from '../../wire/sale-schemas.js';
import { toCard } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import type { MediaTypes } from '../media.js';
import { presentSale } from '../present.js';
import { TOKEN_PATH } from '../routes.js';
import { paymentLinksJson, withLinks } from '../present-payments.js';
import type { ApiRequest, ApiResponse } from './types.js';

export interface SaleOperationDeps {
  sales: Sales;
  refs: RefCodec;
  media: MediaTypes;
  payments: Payments;
  paymentRefs: RefCodec<PaymentRefPurpose>;
}

/** The token id behind a `tokens:token` href of this tenant; undefined for anything else. */
export function tokenIdOfHref(refs: RefCodec, href: string, tenant: string): string | undefined {
  const at = href.lastIndexOf(TOKEN_PATH);
  if (at === -1) return undefined;
  const ref = refs.decode(href.slice(at + TOKEN_PATH.length).replace(/[?#].*$/, ''));
  return ref && ref.purpose === 'token' && ref.tenant === tenant ? ref.tokenId : undefined;
}

function instrumentOf(pi: SaleBody['instruction']['paymentInstrument'], refs: RefCodec, tenant: string): SaleInstrument {
  if (pi.type === 'card/token') return { kind: 'token', tokenId: tokenIdOfHref(refs, pi.href, tenant) };
  return { kind: 'plain', card: toCard(pi) };
}

/** The sale's deps, and the base URLs its payments keep: one string per base URL, not one per payment. */
export interface SaleOperation extends SaleOperationDeps {
  readonly origins: Map<string, string>;
}

export const createSaleOperation = (deps: SaleOperationDeps): SaleOperation => ({ ...deps, origins: new Map() });

function originOf(origins: Map<string, string>, baseUrl: string): string {
  let origin = origins.get(baseUrl);
  if (origin === undefined) {
    if (origins.size >= 64) origins.clear();
    origins.set(baseUrl, (origin = baseUrl));
  }
  return origin;
}

export function sale(op: SaleOperation, req: ApiRequest): ApiResponse {
  const body = parseBody(saleBody, parseJsonText(req.body));
  const { amount, currency } = body.instruction.value;
  // Before anything else happens: a repeated reference changes nothing (no use of the token, no payment).
  op.payments.checkNewReference(req.tenant, body.merchant.entity, body.transactionReference);
  const result = op.sales.sale(
    req.tenant,
    { entity: body.merchant.entity, currency, amount, instrument: instrumentOf(body.instruction.paymentInstrument, op.refs, req.tenant) },
    req.saleOverride,
  );
  // A decided sale is a payment (a scripted ERROR threw above: no payment).
  const payment = op.payments.record(req.tenant, {
    transactionReference: body.transactionReference,
    entity: body.merchant.entity,
    currency,
    amount,
    approved: result.outcome === 'sentForSettlement',
    ...(result.refusal && { refusal: result.refusal }),
    origin: originOf(op.origins, req.baseUrl),
    ...(req.paymentScript && { script: req.paymentScript }),
  });
  const links = paymentLinksJson({ baseUrl: req.baseUrl, refs: op.paymentRefs }, payment);
  return { status: 201, mediaType: op.media.saleResponse, body: withLinks(JSON.stringify(presentSale(result)), links) };
}

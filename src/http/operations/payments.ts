/** The sale, its follow-ups behind the refs of its links (contract 3.2), and payment queries (decision 0057). */
import { lastEventOf, type Payment } from '../../domain/payment.js';
import { decideSale, type SaleInstrument } from '../../domain/sale.js';
import type { PaymentRefPurpose, RefCodec } from '../../infra/refs.js';
import type { BoundedMap } from '../../infra/bounded-map.js';
import { parseJsonText } from '../../wire/json.js';
import { partialRefundBody, saleBody, type SaleBody } from '../../wire/sale-schemas.js';
import { toCard } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import { HttpError, readQuery } from '../errors.js';
import { paymentLinksJson, paymentQueryJson, paymentQueryListJson, presentSale, withLinks, type LinkContext } from '../present.js';
import { ownRef, TOKEN_PATH } from '../routes.js';
import type { ApiRequest, ApiResponse, OperationDeps } from './types.js';

function instrumentOf(pi: SaleBody['instruction']['paymentInstrument'], refs: RefCodec, tenant: string): SaleInstrument {
  if (pi.type === 'card/token') {
    // The token id behind a `tokens:token` href of this tenant; undefined for anything else.
    const at = pi.href.lastIndexOf(TOKEN_PATH);
    const ref = at === -1 ? undefined : refs.decode(pi.href.slice(at + TOKEN_PATH.length).replace(/[?#].*$/, ''));
    return { kind: 'token', tokenId: ref && ref.purpose === 'token' && ref.tenant === tenant ? ref.tokenId : undefined };
  }
  return { kind: 'plain', card: toCard(pi) };
}

const originOf = (origins: BoundedMap<string, string>, baseUrl: string): string => origins.get(baseUrl) ?? origins.remember(baseUrl, baseUrl);

const ctx = (deps: OperationDeps, req: ApiRequest): LinkContext<PaymentRefPurpose> => ({ baseUrl: req.baseUrl, refs: deps.paymentRefs });

export function sale(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const body = parseBody(saleBody, parseJsonText(req.body));
  const { amount, currency } = body.instruction.value;
  // Before anything else happens: a repeated reference changes nothing (no use of the token, no payment).
  deps.payments.checkNewReference(req.tenant, body.merchant.entity, body.transactionReference);
  const result = decideSale(
    deps.sales,
    req.tenant,
    { entity: body.merchant.entity, currency, amount, instrument: instrumentOf(body.instruction.paymentInstrument, deps.refs, req.tenant) },
    req.saleOverride,
  );
  // A decided sale is a payment (a scripted ERROR threw above: no payment).
  const payment = deps.payments.record(req.tenant, {
    transactionReference: body.transactionReference,
    entity: body.merchant.entity,
    currency,
    amount,
    approved: result.outcome === 'sentForSettlement',
    ...(result.refusal && { refusal: result.refusal }),
    origin: originOf(deps.origins, req.baseUrl),
    ...(req.paymentScript && { script: req.paymentScript }),
  });
  return { status: 201, mediaType: deps.media.saleResponse, body: withLinks(JSON.stringify(presentSale(result)), paymentLinksJson(ctx(deps, req), payment)) };
}

const accepted = (deps: OperationDeps, req: ApiRequest, payment: Payment): ApiResponse => ({
  status: 202,
  mediaType: deps.media.saleResponse,
  body: `{"_links":${paymentLinksJson(ctx(deps, req), payment)}}`,
});

/** The id of the payment behind the URL's ref (the path names the action). */
const refPaymentId = (deps: OperationDeps, req: ApiRequest): string => ownRef(deps.paymentRefs, req, 'payment').tokenId;

export function refund(deps: OperationDeps, req: ApiRequest): ApiResponse {
  return accepted(deps, req, deps.payments.refund(req.tenant, refPaymentId(deps, req), req.paymentScript?.refundFailure));
}

export function partialRefund(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const paymentId = refPaymentId(deps, req);
  const body = parseBody(partialRefundBody, parseJsonText(req.body));
  const amount = { amount: body.value.amount, currency: body.value.currency, reference: body.reference };
  return accepted(deps, req, deps.payments.partialRefund(req.tenant, paymentId, amount, req.paymentScript?.refundFailure));
}

export function reversal(deps: OperationDeps, req: ApiRequest): ApiResponse {
  return accepted(deps, req, deps.payments.reversal(req.tenant, refPaymentId(deps, req)));
}

export function paymentEvents(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const payment = deps.payments.get(req.tenant, refPaymentId(deps, req));
  return { status: 200, mediaType: deps.media.saleResponse, body: `{"lastEvent":"${lastEventOf(payment)}","_links":${paymentLinksJson(ctx(deps, req), payment)}}` };
}

/** The payment a paymentId names: one of the tenant's refs, else (unreadable, or another tenant's) 404. */
function paymentIdOf(deps: OperationDeps, req: ApiRequest): string {
  const ref = deps.paymentRefs.decode(req.ref ?? '');
  if (!ref || ref.tenant !== req.tenant) throw new HttpError('paymentIdUnknown', 'The payment does not exist');
  return ref.tokenId;
}

/** `?transactionReference=` (newest first) or `/{paymentId}`; other parameters are ignored, as token queries do. */
export function paymentQuery(deps: OperationDeps, req: ApiRequest): ApiResponse {
  let body: string;
  if (req.ref === undefined) {
    const where = 'GET /paymentQueries/payments';
    const { transactionReference } = readQuery(req.query, ['transactionReference'], where, 'transactionReference is required (queries by date range are not simulated)');
    body = paymentQueryListJson(ctx(deps, req), deps.payments.withReference(req.tenant, transactionReference as string));
  } else body = paymentQueryJson(ctx(deps, req), deps.payments.get(req.tenant, paymentIdOf(deps, req)));
  return { status: 200, mediaType: deps.media.paymentQueries, body };
}

/**
 * The follow-ups of a sale (contract 3.2): full and partial refunds, reversals and the payment's events,
 * behind the opaque refs of the sale's links. Parse, call the payments, present. And payment queries
 * (contract 4.4, decision 0057): a client that got no answer to a sale asks what happened, by its
 * transactionReference, then follows the payment's `self` link. Reads only: the events that are due are
 * caught up, nothing else changes.
 */
import type { Payment, Payments } from '../../domain/payment.js';
import type { PaymentRefPurpose, RefCodec, TokenRef } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { partialRefundBody } from '../../wire/sale-schemas.js';
import type { FieldProblem } from '../../wire/problems.js';
import { parseBody } from '../../wire/validation.js';
import { HttpError, queryRefusal } from '../errors.js';
import type { MediaTypes } from '../media.js';
import { paymentActionJson, paymentEventsJson, paymentQueryJson, paymentQueryListJson, type PaymentLinkContext } from '../present-payments.js';
import type { ApiRequest, ApiResponse } from './types.js';

export interface PaymentOperationsDeps {
  payments: Payments;
  refs: RefCodec<PaymentRefPurpose>;
  media: MediaTypes;
}

/**
 * The decrypted ref of the URL (the path names the action; the ref, the payment): undecryptable → 400;
 * another tenant's → 404, as for a payment that does not exist.
 */
function refOf(deps: PaymentOperationsDeps, req: ApiRequest): TokenRef<PaymentRefPurpose> {
  const ref = deps.refs.decode(req.ref ?? '');
  if (!ref) {
    throw new HttpError('urlInvalid', 'The URL holds an invalid payment reference', {
      problems: [{ errorName: 'fieldHasInvalidValue', message: 'The path does not hold a valid payment reference' }],
    });
  }
  if (ref.tenant !== req.tenant) throw new HttpError('refOfAnotherTenant', 'The payment does not exist');
  return ref;
}

const ctx = (deps: PaymentOperationsDeps, req: ApiRequest): PaymentLinkContext => ({ baseUrl: req.baseUrl, refs: deps.refs });

const accepted = (deps: PaymentOperationsDeps, req: ApiRequest, payment: Payment): ApiResponse => ({
  status: 202,
  mediaType: deps.media.saleResponse,
  body: paymentActionJson(ctx(deps, req), payment),
});

export function refund(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps, req);
  return accepted(deps, req, deps.payments.refund(req.tenant, ref.tokenId, req.paymentScript?.refundFailure));
}

export function partialRefund(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps, req);
  const body = parseBody(partialRefundBody, parseJsonText(req.body));
  const amount = { amount: body.value.amount, currency: body.value.currency, reference: body.reference };
  return accepted(deps, req, deps.payments.partialRefund(req.tenant, ref.tokenId, amount, req.paymentScript?.refundFailure));
}

export function reversal(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps, req);
  return accepted(deps, req, deps.payments.reversal(req.tenant, ref.tokenId));
}

export function paymentEvents(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps, req);
  return { status: 200, mediaType: deps.media.saleResponse, body: paymentEventsJson(ctx(deps, req), deps.payments.get(req.tenant, ref.tokenId)) };
}

const PARAM = 'transactionReference';

/**
 * `?transactionReference=` of GET /paymentQueries/payments: given once and not empty; other parameters are
 * ignored, as token queries ignore theirs (the vendor's date-range query is not simulated).
 */
function readReference(text: string): string {
  const values = new URLSearchParams(text).getAll(PARAM);
  let problem: FieldProblem | undefined;
  if (values.length === 0) problem = { errorName: 'fieldIsMissing', message: `${PARAM} is required (queries by date range are not simulated)` };
  else if (values.length > 1) problem = { errorName: 'fieldHasInvalidValue', message: `${PARAM} must be given once` };
  else if (values[0] === '') problem = { errorName: 'fieldIsEmpty', message: `${PARAM} must not be empty` };
  if (problem) throw queryRefusal('GET /paymentQueries/payments', [problem]);
  return values[0] as string;
}

/** The payment a paymentId names: one of the tenant's refs, else (unreadable, or another tenant's) 404. */
function paymentIdOf(deps: PaymentOperationsDeps, req: ApiRequest): string {
  const ref = deps.refs.decode(req.ref ?? '');
  if (!ref || ref.tenant !== req.tenant) throw new HttpError('paymentIdUnknown', 'The payment does not exist');
  return ref.tokenId;
}

/** GET /paymentQueries/payments?transactionReference= (the tenant's payments, newest first), or /{paymentId}. */
export function paymentQuery(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const body =
    req.ref === undefined
      ? paymentQueryListJson(ctx(deps, req), deps.payments.withReference(req.tenant, readReference(req.query)))
      : paymentQueryJson(ctx(deps, req), deps.payments.get(req.tenant, paymentIdOf(deps, req)));
  return { status: 200, mediaType: deps.media.paymentQueries, body };
}

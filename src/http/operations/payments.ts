/**
 * The follow-ups of a sale (contract 3.2): full and partial refunds, reversals and the payment's events,
 * behind the opaque refs of the sale's links. Parse, call the payments, present.
 */
import type { Payment, Payments } from '../../domain/payment.js';
import type { PaymentRefPurpose, RefCodec, TokenRef } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { partialRefundBody } from '../../wire/payment-schemas.js';
import { parseBody } from '../../wire/validation.js';
import { HttpError } from '../errors.js';
import type { MediaTypes } from '../media.js';
import { paymentActionJson, paymentEventsJson, type PaymentLinkContext } from '../present-payments.js';
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

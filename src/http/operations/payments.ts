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
import type { ApiOperation, ApiRequest, PaymentOperationName } from './types.js';

export interface PaymentOperationsDeps {
  payments: Payments;
  refs: RefCodec<PaymentRefPurpose>;
  media: MediaTypes;
}

export function createPaymentOperations(deps: PaymentOperationsDeps): Record<PaymentOperationName, ApiOperation> {
  const { payments, refs, media } = deps;
  const ctx = (req: ApiRequest): PaymentLinkContext => ({ baseUrl: req.baseUrl, refs });

  /**
   * The decrypted ref of the URL (the path names the action; the ref, the payment): undecryptable → 400;
   * another tenant's → 404, as for a payment that does not exist.
   */
  function refOf(req: ApiRequest): TokenRef<PaymentRefPurpose> {
    const ref = refs.decode(req.ref ?? '');
    if (!ref) {
      throw new HttpError('urlInvalid', 'The URL holds an invalid payment reference', {
        problems: [{ errorName: 'fieldHasInvalidValue', message: 'The path does not hold a valid payment reference' }],
      });
    }
    if (ref.tenant !== req.tenant) throw new HttpError('refOfAnotherTenant', 'The payment does not exist');
    return ref;
  }

  const accepted = (req: ApiRequest, payment: Payment) => ({ status: 202, mediaType: media.saleResponse, body: paymentActionJson(ctx(req), payment) });

  return {
    refund(req) {
      const ref = refOf(req);
      return accepted(req, payments.refund(req.tenant, ref.tokenId, req.paymentScript?.refundFailure));
    },

    partialRefund(req) {
      const ref = refOf(req);
      const body = parseBody(partialRefundBody, parseJsonText(req.body));
      return accepted(req, payments.partialRefund(req.tenant, ref.tokenId, { amount: body.value.amount, currency: body.value.currency, reference: body.reference }, req.paymentScript?.refundFailure));
    },

    reversal(req) {
      const ref = refOf(req);
      return accepted(req, payments.reversal(req.tenant, ref.tokenId));
    },

    paymentEvents(req) {
      const ref = refOf(req);
      return { status: 200, mediaType: media.saleResponse, body: paymentEventsJson(ctx(req), payments.get(req.tenant, ref.tokenId)) };
    },
  };
}

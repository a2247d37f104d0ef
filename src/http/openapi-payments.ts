/** The follow-ups of a sale in the OpenAPI document (contract 3.2): refunds, reversals and events. */
import type { MediaTypes } from './media.js';
import { COMMON_ERRORS, errors, json, jsonSchema, ref, type Schema } from './openapi-parts.js';
import { paymentActionResponse, paymentEventsResponse } from './openapi-schemas.js';
import { partialRefundBody } from '../wire/payment-schemas.js';

const basic = [{ basicAuth: [] }];

/** The schemas the payment paths refer to. */
export function paymentSchemas(): Record<string, Schema> {
  return {
    PartialRefundRequest: jsonSchema(partialRefundBody, 'input'),
    PaymentAction: jsonSchema(paymentActionResponse, 'output'),
    PaymentEvents: jsonSchema(paymentEventsResponse, 'output'),
  };
}

/** The paths of a payment's links. */
export function paymentPaths(media: MediaTypes): Record<string, Schema> {
  const paymentRef = {
    name: 'paymentRef',
    in: 'path',
    required: true,
    description: 'The opaque ref that ends every link of a payment (`payments:refund`, `payments:partialRefund`, `payments:reversal`, `payments:events` end in the same one); the path names the action',
    schema: { type: 'string' },
  };
  const paymentAccepted = { description: 'Accepted: links to the actions allowed next and to the events', ...json(ref('PaymentAction'), media.saleResponse) };
  const PAYMENT_ERRORS: [number, string][] = [...COMMON_ERRORS, [404, 'resourceNotFound'], [409, 'actionIsNotAllowed']];
  return {
    '/payments/settlements/refunds/full/{paymentRef}': {
      parameters: [paymentRef],
      post: {
        operationId: 'refund',
        summary: 'Refund what remains of the sale (the `payments:refund` link); no body',
        security: basic,
        responses: { 202: paymentAccepted, ...errors(...PAYMENT_ERRORS) },
      },
    },
    '/payments/settlements/refunds/partials/{paymentRef}': {
      parameters: [paymentRef],
      post: {
        operationId: 'partialRefund',
        summary: 'Refund part of the sale (the `payments:partialRefund` link), in its currency, within what remains',
        security: basic,
        requestBody: { required: true, ...json(ref('PartialRefundRequest'), media.saleRequest) },
        responses: { 202: paymentAccepted, ...errors(...PAYMENT_ERRORS) },
      },
    },
    '/payments/sales/reversals/{paymentRef}': {
      parameters: [paymentRef],
      post: {
        operationId: 'reversal',
        summary: 'Reverse the sale (the `payments:reversal` link): cancelled before settlement, sent for refund after; no body',
        security: basic,
        responses: { 202: paymentAccepted, ...errors(...PAYMENT_ERRORS) },
      },
    },
    '/payments/events/{paymentRef}': {
      parameters: [paymentRef],
      get: {
        operationId: 'paymentEvents',
        summary: 'The payment\u2019s last event by the virtual now (the `payments:events` link)',
        security: basic,
        responses: { 200: { description: 'The last event and what may follow', ...json(ref('PaymentEvents'), media.saleResponse) }, ...errors(...COMMON_ERRORS, [404, 'resourceNotFound']) },
      },
    },
  };
}

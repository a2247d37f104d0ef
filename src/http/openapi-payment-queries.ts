/**
 * Payment queries in the OpenAPI document (contract 4.4, decision 0057): the schemas of their answers (zod, as
 * the other answers') and their two paths.
 */
import * as z from 'zod';
import type { MediaTypes } from './media.js';
import { COMMON_ERRORS, errors, json, jsonSchema, query, ref, type Schema } from './openapi-parts.js';
import { paymentEventsResponse, paymentLinks, saleResponse } from './openapi-schemas.js';

const instant = z.string().meta({ format: 'date-time' });

const paymentSummary = z.object({
  paymentId: z.string().meta({ description: 'The opaque ref that ends the payment\u2019s links; GET /paymentQueries/payments/{paymentId} answers it' }),
  timestamp: instant.meta({ description: 'When the sale was made (virtual time)' }),
  transactionReference: z.string(),
  entity: z.string(),
  outcome: saleResponse.shape.outcome,
  lastEvent: paymentEventsResponse.shape.lastEvent,
  value: z.object({ amount: z.int().min(0), currency: z.string() }),
  _links: paymentLinks.extend({ self: z.object({ href: z.string() }) }),
});

export const paymentQueryResponse = paymentSummary
  .extend({ events: z.array(z.object({ eventName: paymentEventsResponse.shape.lastEvent, timestamp: instant })).meta({ description: 'What happened, oldest first' }) })
  .meta({ description: 'A payment, its events by the virtual now, and links to what it allows now' });

export const paymentQueryListResponse = z
  .object({ _embedded: z.object({ payments: z.array(paymentSummary) }) })
  .meta({ description: 'The tenant\u2019s payments with this transactionReference (any merchant entity), newest first; none when it is unknown' });

/** The schemas the payment query paths refer to. */
export function paymentQuerySchemas(): Record<string, Schema> {
  return {
    PaymentQueryList: jsonSchema(paymentQueryListResponse, 'output'),
    PaymentQuery: jsonSchema(paymentQueryResponse, 'output'),
  };
}

/** GET /paymentQueries/payments?transactionReference= and GET /paymentQueries/payments/{paymentId}. */
export function paymentQueryPaths(media: MediaTypes): Record<string, Schema> {
  const basic = [{ basicAuth: [] }];
  const paymentId = { name: 'paymentId', in: 'path', required: true, description: 'The `paymentId` of a payment query\u2019s answer (the ref that ends the payment\u2019s links)', schema: { type: 'string' } };
  return {
    '/paymentQueries/payments': {
      get: {
        operationId: 'paymentQuery',
        summary: 'Find the tenant\u2019s payments by transactionReference (what happened to a sale whose answer was lost)',
        security: basic,
        parameters: [{ ...query('transactionReference', 'The transactionReference of the sale', { type: 'string', minLength: 1 }), required: true }],
        responses: { 200: { description: 'The payments found (maybe none)', ...json(ref('PaymentQueryList'), media.paymentQueries) }, ...errors(...COMMON_ERRORS) },
      },
    },
    '/paymentQueries/payments/{paymentId}': {
      parameters: [paymentId],
      get: {
        operationId: 'paymentQueryById',
        summary: 'One payment of the tenant (the `self` link of a payment query\u2019s answer), with its events',
        security: basic,
        responses: { 200: { description: 'The payment', ...json(ref('PaymentQuery'), media.paymentQueries) }, ...errors(...COMMON_ERRORS, [404, 'resourceNotFound']) },
      },
    },
  };
}

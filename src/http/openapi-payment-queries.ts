/**
 * Payment queries in the OpenAPI document (contract 4.4, decision 0057): the schemas of their answers (zod, as
 * the other answers'); their paths come from the route table (api-docs.ts).
 */
import * as z from 'zod';
import { jsonSchema, type Schema } from './openapi-parts.js';
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

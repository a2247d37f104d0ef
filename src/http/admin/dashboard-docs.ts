/** How the OpenAPI document describes the dashboard's rows of the control table (contract 3.4, decision 0034). */
import { answer, errors, jsonSchema, pathParam, query, type Schema } from '../openapi-parts.js';
import { controlPayment, controlTenant } from '../openapi-schemas.js';
import { badQuery, journalFilters, named, pageParameters } from './docs.js';

const payment = (): Schema => jsonSchema(controlPayment, 'output');

const unknownParameter = badQuery('an unknown parameter');
const tenantNeeded: [number, string] = [400, 'urlContainsInvalidValue (no tenant, or one that is not a configured username; an unknown parameter)'];

const action = (summary: string) => ({
  summary,
  pathParameters: [pathParam('paymentId', 'The payment\u2019s id (`paymentId` of GET /_sim/payments)')],
  responses: {
    200: answer('The payment after the action, as GET /_sim/payments lists it', payment()),
    ...errors(tenantNeeded, [404, 'resourceNotFound (no such payment of the tenant)'], [409, 'actionIsNotAllowed (the payment\u2019s state does not allow it)']),
  },
});

export const DASHBOARD_DOCS = named({
  listTenants: () => ({
    summary: 'Every configured username (a tenant\u2019s credentials: that tenant only) with its clock and counts',
    responses: {
      200: answer('The tenants', { type: 'object', properties: { tenants: { type: 'array', items: jsonSchema(controlTenant, 'output') } }, required: ['tenants'], additionalProperties: false }),
      ...errors(unknownParameter),
    },
  }),
  listPayments: () => ({
    summary: 'Payments, oldest first, their events caught up to the tenant\u2019s virtual now',
    // (sic) "tokens": the served document's text for this limit.
    parameters: [...pageParameters('tokens'), query('transactionReference', 'Only the payments of this transactionReference (any merchant entity)', { type: 'string', minLength: 1 })],
    responses: {
      200: answer('One page of payments, card data masked', { type: 'object', properties: { payments: { type: 'array', items: payment() }, next: { type: ['string', 'null'] } }, required: ['payments', 'next'], additionalProperties: false }),
      ...errors(badQuery('a bad limit, cursor or transactionReference')),
    },
  }),
  refundPayment: () => action('A full refund of what remains, through the same rules, events and webhooks as the API\u2019s'),
  reversePayment: () => action('A reversal (a cancel before settlement, a refund of the whole amount after), as the API\u2019s'),
  deleteToken: () => ({
    pathParameters: [pathParam('tokenId', 'The token\u2019s id (`tokenId` of GET /_sim/tokens)')],
    responses: { 204: answer('Deleted'), ...errors(tenantNeeded, [404, 'resourceNotFound (no such live token of the tenant)']) },
  }),
  streamRequests: () => ({
    summary: 'The live journal as server-sent events: the last 50 matching entries (or those after `since` / `Last-Event-ID`), then each new one',
    description:
      'Each entry is `id: <seq>`, `event: request`, `data: <the masked entry GET /_sim/requests lists>`. A comment line every 15 s. ' +
      'New entries go out together every 200 ms. A client that reads too slowly (over 256 KiB buffered), or more than 200 entries in one period, loses the oldest waiting entries and gets one ' +
      '`event: gap` with `data: {"skipped": n}`. The admin token may also be given as `access_token` (EventSource cannot set headers).',
    parameters: [
      ...journalFilters(),
      query('since', 'Resume: the entries after this seq first (at most 1000; older ones are reported as a gap)', { type: 'integer', minimum: 0 }),
      query('access_token', 'The admin token, for clients that cannot set Authorization (this call only)', { type: 'string' }),
      { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume as with since (the browser sends it when it reconnects)', schema: { type: 'string' } },
    ],
    responses: { 200: answer('An endless text/event-stream', { type: 'string' }, 'text/event-stream'), ...errors(unknownParameter) },
  }),
});

/** The control plane declared once (decision 0049): every /_sim call as one row, for the routes, OpenAPI and library. */
import { OPERATIONS } from '../../control/journal.js';
import { WEBHOOK_STATES } from '../../infra/webhooks.js';
import { clockAdvanceBody, clockSetBody } from '../../wire/schemas.js';
import { PAGE_DEFAULT, PAGE_MAX } from '../control-query.js';
import { STREAM_LIMITS } from '../journal-stream.js';
import { answer, badQuery, body, errors, jsonSchema, pathParam, query, ref, type OperationDoc, type Schema } from '../openapi-parts.js';
import { controlPayment, controlTenant, journalEntry, webhookDelivery, webhookFlush, webhookResend } from '../openapi-schemas.js';
import type { ControlHandler, RowCall } from './context.js';
import * as call from './handlers.js';
import { magicValuesSchema } from './magic-values.js';

/** Who may call (decision 0026): `open` anyone; `admin` the admin token alone when one is set; `tenant` it or a
 * tenant's Basic credentials (anyone without --admin-token); `stream` as `tenant`, the token also as `?access_token=`. */
export type Access = 'open' | 'admin' | 'tenant' | 'stream';

export interface ControlOperation {
  /** Its key in the table: the OpenAPI document's operationId. */
  operationId: string;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Under /_sim, as Express matches it (case-insensitive, a trailing slash allowed; `:name` a path parameter). */
  path: string;
  access: Access;
  /** Takes `?tenant=` (or a tenant's credentials), read first; `required`: it must be named. */
  tenant: boolean | 'required';
  /** The query parameters it takes, any other refused; absent: the call reads its query itself. */
  query?: readonly string[];
  /** Its one call, the library's too (decision 0062); `handle`, the row's own HTTP handler. */
  call?: RowCall;
  handle?: ControlHandler;
  /** SimulatorControl's method that makes the call (`clock.*` SimulatorClock's). */
  library?: string;
  /** What the OpenAPI document says of it, less what the row implies (openapi.ts); built fresh each time. */
  doc: () => OperationDoc;
}

const TENANT = ['tenant'];

const badBody: [number, string] = [400, 'bodyDoesNotMatchSchema, bodyIsEmpty, bodyIsNotJson or urlContainsInvalidValue'];
const tooLarge: [number, string] = [413, 'bodyIsTooLarge'];
const next = { type: ['string', 'null'], description: 'The cursor of the next page; null on the last' };
const clock = answer('The clock', ref('Clock'));
const scenarioList = (): Schema => answer('The active scenarios', { type: 'object', properties: { scenarios: { type: 'array', items: ref('ScenarioEcho') } }, required: ['scenarios'] });

/** `limit`: at most this many `items`. */
const limit = (items: string): Schema => query('limit', `At most this many ${items} (default ${PAGE_DEFAULT})`, { type: 'integer', minimum: 0, maximum: PAGE_MAX });

/** `limit` and `cursor` of a paged read of these `items`. */
const pageParameters = (items: string): Schema[] => [
  limit(items),
  query('cursor', 'The `next` of an earlier answer: the page after it', { type: 'string', minLength: 1 }),
];

/** The journal's filters, of `GET /_sim/requests` and of its live stream. */
const journalFilters = (): Schema[] => [
  query('operation', 'Only this operation', { type: 'string', enum: [...OPERATIONS] }),
  query('status', 'Only answers with this HTTP status (0: unanswered)', { type: 'integer', minimum: 0, maximum: 599 }),
  query('method', 'Only this request method', { type: 'string' }),
  query('rule', 'Only requests shaped by this scenario rule', { type: 'string' }),
];

const journalParameters = (): Schema[] => [
  ...journalFilters(),
  query('since', 'Only entries after this seq', { type: 'integer', minimum: 0 }),
  limit('entries, the oldest first'),
  query('cursor', 'The `next` of an earlier answer: the page after it (not with since)', { type: 'string', pattern: '^[0-9]+$' }),
  query('format', 'json (default) or har (HAR 1.2)', { type: 'string', enum: ['json', 'har'] }),
];

/** The health body: `state: reset` and when, once the Redis store was found to have lost its state, until a whole reset (decision 0041). */
function healthSchema(status: 'ok' | 'unavailable'): Schema {
  const memory = { type: 'object', properties: { kind: { const: 'memory' } }, required: ['kind'], additionalProperties: false };
  const redis = {
    type: 'object',
    properties: { kind: { const: 'redis' }, up: { type: 'boolean' }, state: { const: 'reset' }, at: { type: 'string', format: 'date-time' } },
    required: ['kind', 'up'],
    dependentRequired: { state: ['at'], at: ['state'] },
    additionalProperties: false,
  };
  return { type: 'object', properties: { status: { const: status }, store: { oneOf: [memory, redis] } }, required: ['status', 'store'], additionalProperties: false };
}

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

const { backlog, resume, pending, flushMs, buffered, heartbeatMs } = STREAM_LIMITS;

/** In the order of the OpenAPI document; a path's rows in the order of its `Allow`. */
const ROWS = {
  health: { method: 'GET', path: '/health', access: 'open', tenant: false, handle: call.health, library: 'ready', doc: () => ({
    summary: 'Liveness and where the state lives (open even with --admin-token)',
    responses: { 200: answer('Up', healthSchema('ok')), 503: answer('The Redis store cannot be reached', healthSchema('unavailable')) },
  }) },
  getClock: { method: 'GET', path: '/clock', access: 'tenant', tenant: true, call: call.onController('clock'), library: 'clock.now', doc: () => ({ responses: { 200: clock } }) },
  setClock: { method: 'PUT', path: '/clock', access: 'tenant', tenant: true, call: call.withBody('setClock'), library: 'clock.set',
    doc: () => ({ requestBody: body(jsonSchema(clockSetBody, 'input')), responses: { 200: clock, ...errors(badBody, tooLarge) } }) },
  advanceClock: { method: 'POST', path: '/clock/advance', access: 'tenant', tenant: true, call: call.withBody('advanceClock'), library: 'clock.advance',
    doc: () => ({ requestBody: body(jsonSchema(clockAdvanceBody, 'input')), responses: { 200: clock, ...errors(badBody, tooLarge) } }) },
  reset: { method: 'POST', path: '/reset', access: 'tenant', tenant: true, call: call.onController('reset'), library: 'reset',
    doc: () => ({ responses: { 204: answer('Tokens, journal, scenario counters and webhook deliveries deleted; configured tokens preloaded again') } }) },
  listTokens: { method: 'GET', path: '/tokens', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor'], call: call.listTokens, library: 'tokens', doc: () => ({
    parameters: pageParameters('tokens'),
    responses: {
      200: answer('One page of live tokens, masked, with their tenants', { type: 'object', properties: { tokens: { type: 'array', items: ref('ControlToken') }, next }, required: ['tokens', 'next'] }),
      ...errors(badQuery('a bad limit or cursor')),
    },
  }) },
  listRequests: { method: 'GET', path: '/requests', access: 'tenant', tenant: true, call: call.listRequests, library: 'requests', doc: () => ({
    parameters: journalParameters(),
    responses: {
      200: answer(
        'The oldest `limit` entries that pass the filter (newest last) and how many pass it, card data masked; with format=har, a HAR 1.2 document',
        { type: 'object', properties: { requests: { type: 'array', items: jsonSchema(journalEntry, 'output') }, count: { type: 'integer', minimum: 0 }, next, log: { type: 'object', properties: { _next: next } } } },
      ),
      ...errors([400, 'urlContainsInvalidValue']),
    },
  }) },
  clearRequests: { method: 'DELETE', path: '/requests', access: 'tenant', tenant: true, query: TENANT, call: call.onController('clearRequests'), library: 'clearRequests',
    doc: () => ({ responses: { 204: answer('Cleared') } }) },
  // Streamed over HTTP; the library's snapshot is one object.
  exportState: { method: 'GET', path: '/state', access: 'tenant', tenant: true, handle: call.exportState, call: { run: ({ controller }) => controller.exportState() }, library: 'exportState',
    doc: () => ({ responses: { 200: answer('Everything, or one tenant\u2019s part (`?tenant=` or its Basic credentials), card numbers sealed', ref('StateExport')) } }) },
  importState: { method: 'PUT', path: '/state', access: 'tenant', tenant: true, call: call.importState, library: 'importState', doc: () => ({
    requestBody: body(ref('State')),
    responses: { 204: answer('Replaced (with a tenant: that tenant\u2019s part only)'), ...errors(badBody, [413, 'bodyIsTooLarge (over --state-limit)']) },
  }) },
  listScenarios: { method: 'GET', path: '/scenarios', access: 'tenant', tenant: true, call: call.listScenarios, library: 'scenarios', doc: () => ({
    tenantText: "One tenant's own scenario set (evaluated before the global set for its requests); without it, the global set",
    responses: { 200: scenarioList() },
  }) },
  loadScenarios: { method: 'PUT', path: '/scenarios', access: 'tenant', tenant: true, call: call.loadScenarios, library: 'loadScenarios', doc: () => ({
    requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [ref('Scenario'), { type: 'array', items: ref('Scenario') }] } }, 'application/yaml': { schema: ref('Scenario') } } },
    responses: { 200: scenarioList(), ...errors(badBody, tooLarge) },
  }) },
  // loadScenarios() with no scenario: the set cleared.
  clearScenarios: { method: 'DELETE', path: '/scenarios', access: 'tenant', tenant: true, call: call.clearScenarios, library: 'loadScenarios', doc: () => ({ responses: { 204: answer('Cleared') } }) },
  listWebhooks: { method: 'GET', path: '/webhooks', access: 'tenant', tenant: true, call: call.listWebhooks, library: 'webhooks', doc: () => ({
    summary: 'The webhook delivery log (docs/webhooks.md): the oldest `limit` deliveries that pass the filter, newest last',
    parameters: [query('state', 'Only deliveries in this state', { enum: [...WEBHOOK_STATES] }), ...pageParameters('deliveries')],
    responses: {
      200: answer('One page of deliveries and how many pass the filter', {
        type: 'object',
        properties: { webhooks: { type: 'array', items: jsonSchema(webhookDelivery, 'output') }, count: { type: 'integer', minimum: 0 }, next },
        required: ['webhooks', 'count', 'next'],
        additionalProperties: false,
      }),
      ...errors(badQuery('a bad state, limit or cursor')),
    },
  }) },
  flushWebhooks: { method: 'POST', path: '/webhooks/flush', access: 'tenant', tenant: true, call: call.flushWebhooks, library: 'flushWebhooks', doc: () => ({
    summary: 'Answers once no webhook delivery (of the tenant) is queued, in flight or waiting to retry, or once `timeout` has passed',
    parameters: [query('timeout', 'Milliseconds to wait at most (default 30000)', { type: 'integer', minimum: 0, maximum: 60000 })],
    responses: {
      200: answer(
        '`flushed`: the queue emptied; `pending`: deliveries still queued, in flight or waiting to retry',
        jsonSchema(webhookFlush, 'output'),
      ),
      ...errors(badQuery('a bad timeout')),
    },
  }) },
  // Webhooks as the vendor sends them (contract 4.4, decision 0056): a logged delivery sent again.
  resendWebhook: { method: 'POST', path: '/webhooks/:id/resend', access: 'tenant', tenant: true, query: TENANT, call: call.resendWebhook, library: 'resendWebhook', doc: () => ({
    summary: 'Sends a delivery of the log again (docs/webhooks.md): the same event and eventId, as a new delivery with an id of its own',
    pathParameters: [pathParam('id', 'A delivery\u2019s `id`, as GET /_sim/webhooks lists it', { type: 'string', minLength: 1 })],
    responses: {
      202: answer('Queued: `id` the new delivery, `resendOf` the one sent again', jsonSchema(webhookResend, 'output')),
      ...errors(badQuery('a query parameter'), [404, 'resourceNotFound: the log shows no delivery with this id (of the tenant)']),
    },
  }) },
  metrics: { method: 'GET', path: '/metrics', access: 'admin', tenant: false, query: [], handle: call.metrics, doc: () => ({
    summary: 'Metrics in the Prometheus text format: requests, latency, tokens, journal, RSS, event-loop lag (with --admin-token, the admin token alone opens it)',
    responses: {
      200: answer('The exposition text (format 0.0.4); per-tenant series for the 50 busiest tenants only', { type: 'string' }, 'text/plain; version=0.0.4'),
      ...errors([400, 'urlContainsInvalidValue (it takes no query parameter)']),
    },
  }) },
  // The dashboard's rows (contract 3.4, decision 0034).
  listTenants: { method: 'GET', path: '/tenants', access: 'tenant', tenant: true, query: TENANT, call: call.listTenants, doc: () => ({
    summary: 'Every configured username (a tenant\u2019s credentials: that tenant only) with its clock and counts',
    responses: {
      200: answer('The tenants', { type: 'object', properties: { tenants: { type: 'array', items: jsonSchema(controlTenant, 'output') } }, required: ['tenants'], additionalProperties: false }),
      ...errors(unknownParameter),
    },
  }) },
  listPayments: { method: 'GET', path: '/payments', access: 'tenant', tenant: true, query: ['tenant', 'limit', 'cursor', 'transactionReference'], call: call.listPayments, library: 'payments', doc: () => ({
    summary: 'Payments, oldest first, their events caught up to the tenant\u2019s virtual now',
    parameters: [...pageParameters('payments'), query('transactionReference', 'Only the payments of this transactionReference (any merchant entity)', { type: 'string', minLength: 1 })],
    responses: {
      200: answer('One page of payments, card data masked', { type: 'object', properties: { payments: { type: 'array', items: payment() }, next: { type: ['string', 'null'] } }, required: ['payments', 'next'], additionalProperties: false }),
      ...errors(badQuery('a bad limit, cursor or transactionReference')),
    },
  }) },
  refundPayment: { method: 'POST', path: '/payments/:paymentId/refund', access: 'tenant', tenant: 'required', query: TENANT, call: call.refundPayment,
    doc: () => action('A full refund of what remains, through the same rules, events and webhooks as the API\u2019s') },
  reversePayment: { method: 'POST', path: '/payments/:paymentId/reversal', access: 'tenant', tenant: 'required', query: TENANT, call: call.reversePayment,
    doc: () => action('A reversal (a cancel before settlement, a refund of the whole amount after), as the API\u2019s') },
  deleteToken: { method: 'DELETE', path: '/tokens/:tokenId', access: 'tenant', tenant: 'required', query: TENANT, call: call.deleteToken, doc: () => ({
    pathParameters: [pathParam('tokenId', 'The token\u2019s id (`tokenId` of GET /_sim/tokens)')],
    responses: { 204: answer('Deleted'), ...errors(tenantNeeded, [404, 'resourceNotFound (no such live token of the tenant)']) },
  }) },
  streamRequests: { method: 'GET', path: '/requests/stream', access: 'stream', tenant: true, handle: call.streamRequests, doc: () => ({
    summary: `The live journal as server-sent events: the last ${backlog} matching entries (or those after \`since\` / \`Last-Event-ID\`), then each new one`,
    description:
      `Each entry is \`id: <seq>\`, \`event: request\`, \`data: <the masked entry GET /_sim/requests lists>\`. A comment line every ${heartbeatMs / 1000} s. ` +
      `New entries go out together every ${flushMs} ms. A client that reads too slowly (over ${buffered / 1024} KiB buffered), or more than ${pending} entries in one period, loses the oldest waiting entries and gets one ` +
      '`event: gap` with `data: {"skipped": n}`. The admin token may also be given as `access_token` (EventSource cannot set headers).',
    parameters: [
      ...journalFilters(),
      query('since', `Resume: the entries after this seq first (at most ${resume}; older ones are reported as a gap)`, { type: 'integer', minimum: 0 }),
      query('access_token', 'The admin token, for clients that cannot set Authorization (this call only)', { type: 'string' }),
      { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume as with since (the browser sends it when it reconnects)', schema: { type: 'string' } },
    ],
    responses: { 200: answer('An endless text/event-stream', { type: 'string' }, 'text/event-stream'), ...errors(unknownParameter) },
  }) },
  openApi: { method: 'GET', path: '/openapi.json', access: 'tenant', tenant: false, handle: call.openApi, doc: () => ({ responses: { 200: answer('This document', { type: 'object' }) } }) },
  // Every value that changes an outcome (contract 4.4, decision 0057).
  magicValues: { method: 'GET', path: '/magic-values', access: 'tenant', tenant: true, query: TENANT, call: { run: (parts, { tenant }) => parts.magicValues(tenant) }, library: 'magicValues', doc: () => ({
    summary: 'Every value that changes an outcome, each with what it does: card holder names, card expiry, billing postal codes, amounts of the active scenario rules, and the BIN table',
    description: 'Read from the tables the simulator runs on. With `tenant`, the amounts of that tenant\u2019s own scenario set come first. A `null` postal code is a sale without a billing address; a `null` card prefix, a card no entry matches.',
    responses: { 200: answer('The catalogue', jsonSchema(magicValuesSchema, 'output')), ...errors(unknownParameter) },
  }) },
} as const satisfies Record<string, Omit<ControlOperation, 'operationId'>>;
export const CONTROL_TABLE: readonly ControlOperation[] = Object.entries(ROWS).map(([operationId, row]) => ({ operationId, ...row }));

/** The library methods that rows serve (remote.ts holds them equal to the library's surface). */
export type LibraryName = Extract<(typeof ROWS)[keyof typeof ROWS], { library: string }>['library'];

/** A path as the OpenAPI document and the refusals' messages write it: `/_sim/payments/{paymentId}/refund`. */
export const documentedPath = (op: ControlOperation): string => `/_sim${op.path.replace(/:(\w+)/g, '{$1}')}`;

/** The row a library method takes (by method as well where two rows serve one method). */
export function routeOf(library: LibraryName, method?: ControlOperation['method']): ControlOperation {
  const op = CONTROL_TABLE.find((row) => row.library === library && (method === undefined || row.method === method));
  if (op === undefined) throw new Error(`no /_sim row serves ${library}`);
  return op;
}

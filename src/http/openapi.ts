/**
 * The OpenAPI 3.1 document of the simulated API and the control API, generated from the zod schemas the
 * server validates with (zod 4's JSON Schema output), so it cannot drift from what is enforced.
 */
import { stateSchema } from '../control/state.js';
import { OPERATIONS } from '../control/journal.js';
import { scenarioSchema } from '../scenarios/schema.js';
import { mediaTypesFor } from './media.js';
import { clockResponse, controlTokenResponse, errorResponse, saleResponse, tokenResponse } from './openapi-schemas.js';
import { COMMON_ERRORS, errors, json, jsonSchema, ref, withBrowserRules, type Schema } from './openapi-parts.js';
import { dashboardPaths } from './openapi-dashboard.js';
import { paymentPaths, paymentSchemas } from './openapi-payments.js';
import { maskedShape, sealedScenario } from './openapi-shapes.js';
import { saleBody } from '../wire/sale-schemas.js';
import { billingAddress, cardHolderName, clockAdvanceBody, clockSetBody, createTokenBody, description, schemeTransactionReference, updateCardExpiryDate } from '../wire/schemas.js';

export interface OpenApiOptions {
  vendor: string;
  /** The server URL to advertise; `http://127.0.0.1:8080` when absent. */
  baseUrl?: string;
  version: string;
}

export function openApiDocument(options: OpenApiOptions): Schema {
  const media = mediaTypesFor(options.vendor);
  const tokenRef = { name: 'tokenRef', in: 'path', required: true, description: 'The opaque ref at the end of a token link (`tokens:token`, a per-field link or `tokens:conflicts`)', schema: { type: 'string' } };
  const tenant = { name: 'tenant', in: 'query', required: false, description: 'One tenant (a configured username); without it the call acts on every tenant', schema: { type: 'string', minLength: 1 } };
  const unknownTenant: [number, string] = [400, 'urlContainsInvalidValue (a tenant that is not a configured username)'];
  const query = (name: string, description: string, schema: object) => ({ name, in: 'query', required: false, description, schema });
  const journalParameters = [
    query('operation', 'Only this operation', { type: 'string', enum: [...OPERATIONS] }),
    query('status', 'Only answers with this HTTP status (0: unanswered)', { type: 'integer', minimum: 0, maximum: 599 }),
    query('method', 'Only this request method', { type: 'string' }),
    query('rule', 'Only requests shaped by this scenario rule', { type: 'string' }),
    query('since', 'Only entries after this seq', { type: 'integer', minimum: 0 }),
    query('limit', 'At most this many entries, the oldest first (default 1000)', { type: 'integer', minimum: 0, maximum: 10000 }),
    query('cursor', 'The `next` of an earlier answer: the page after it (not with since)', { type: 'string', pattern: '^[0-9]+$' }),
    query('format', 'json (default) or har (HAR 1.2)', { type: 'string', enum: ['json', 'har'] }),
  ];
  const pageParameters = [
    query('limit', 'At most this many tokens (default 1000)', { type: 'integer', minimum: 0, maximum: 10000 }),
    query('cursor', 'The `next` of an earlier answer: the page after it', { type: 'string', minLength: 1 }),
  ];
  const next = { type: ['string', 'null'], description: 'The cursor of the next page; null on the last' };
  const tooLarge: [number, string] = [413, 'bodyIsTooLarge'];
  const detokenizeNote = `\`Accept: ${media.token}; masked=false\` answers \`paymentInstrument.type: card/front\` with the full \`cardNumber\`, for a credential with \`detokenize: true\` in its fixtures; any other credential gets 403 merchantIsNotConfigured.`;
  const detokenizeRefused: [number, string] = [403, 'merchantIsNotConfigured (masked=false from a credential not allowed to detokenize)'];
  const basic = [{ basicAuth: [] }];
  const control = [{}, { adminBearer: [] }];
  // A tenant's Basic credentials open its own control plane; other tenants and everyone-wide calls answer 403 (decision 0026).
  const tenantControl = [{}, { adminBearer: [] }, { basicAuth: [] }];
  const forbidden: [number, string] = [403, 'operationIsNotAllowed (a tenant\u2019s Basic credentials naming another tenant)'];
  const scenario = jsonSchema(scenarioSchema, 'input');
  const state = jsonSchema(stateSchema, 'output');
  // A snapshot's scenario sets carry sealed card numbers (control/state.ts sealScenarioSets).
  const sets = (state.properties as Record<string, Schema>).scenarios!;
  sets.additionalProperties = { type: 'array', items: ref('SnapshotScenario') };
  // What GET /_sim/state sends: the same, after /_sim's masking (the scenario items inline: a $ref would
  // point at the unmasked SnapshotScenario).
  const exportSets = { ...sets, additionalProperties: { type: 'array', items: sealedScenario(scenario) } };
  const stateExport = maskedShape({ ...state, properties: { ...(state.properties as Schema), scenarios: exportSets } }, 'A state export: a State, with card data masked in its texts');
  const scenarioList = json({ type: 'object', properties: { scenarios: { type: 'array', items: ref('ScenarioEcho') } }, required: ['scenarios'] });
  const tokenAnswer = (status: string, text: string): Schema => ({ [status]: { description: text, ...json(ref('Token'), media.token) } });
  const updateBody = {
    required: false,
    description: 'The bare new value; its shape follows the link the ref came from (none for tokens:conflicts)',
    content: {
      [media.token]: {
        schema: {
          oneOf: [
            { ...jsonSchema(description, 'input'), title: 'description' },
            { ...jsonSchema(cardHolderName, 'input'), title: 'cardHolderName' },
            { ...jsonSchema(updateCardExpiryDate, 'input'), title: 'cardExpiryDate' },
            { ...jsonSchema(billingAddress, 'input'), title: 'billingAddress' },
            { ...jsonSchema(schemeTransactionReference, 'input'), title: 'schemeTransactionReference' },
          ],
        },
      },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'token-sim: token vault and card-on-file sale (simulated)',
      version: options.version,
      description:
        'The token service (v1) and the card-on-file sale (v5) as token-sim simulates them, plus token-sim\u2019s own control API under /_sim. Generated from the schemas the simulator validates with.',
    },
    servers: [{ url: options.baseUrl ?? 'http://127.0.0.1:8080' }],
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'Each username is a tenant; on /_sim, it opens that tenant\u2019s own control plane only' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'Only when token-sim runs with --admin-token' },
        adminQuery: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The admin token as a query parameter: GET /_sim/requests/stream only (EventSource cannot set headers)' },
      },
      schemas: {
        CreateTokenRequest: jsonSchema(createTokenBody, 'input'),
        Token: jsonSchema(tokenResponse, 'output'),
        TokenList: {
          type: 'object',
          description: 'The answer of a token query (HAL): live tokens as GET of each answers them, oldest first',
          properties: { _embedded: { type: 'object', properties: { tokens: { type: 'array', items: ref('Token') } }, required: ['tokens'] } },
          required: ['_embedded'],
        },
        SaleRequest: jsonSchema(saleBody, 'input'),
        SaleResponse: jsonSchema(saleResponse, 'output'),
        ...paymentSchemas(),
        Error: jsonSchema(errorResponse, 'output'),
        ControlToken: jsonSchema(controlTokenResponse, 'output'),
        Clock: jsonSchema(clockResponse, 'output'),
        State: state,
        StateExport: stateExport,
        Scenario: scenario,
        SnapshotScenario: sealedScenario(scenario),
        ScenarioEcho: maskedShape(scenario, 'A scenario as /_sim answers it: card numbers masked (first and last four digits kept), also inside texts'),
      },
    },
    paths: withBrowserRules({
      '/tokens': {
        get: {
          operationId: 'queryTokens',
          summary: 'Find tokens by namespace (any merchant entity) or by tokenId; both: a token must match both. Not a use: no expiry moves',
          description: detokenizeNote,
          security: basic,
          parameters: [
            query('namespace', 'The tenant\u2019s live tokens in this namespace, oldest first', { type: 'string', minLength: 1 }),
            query('tokenId', 'The token with this id, or none', { type: 'string', minLength: 1 }),
          ],
          responses: {
            200: { description: 'The tokens found (maybe none)', ...json(ref('TokenList'), media.token) },
            ...errors(...COMMON_ERRORS, detokenizeRefused),
          },
        },
        post: {
          operationId: 'createToken',
          summary: 'Create a token (or answer the existing one, or a conflict)',
          security: basic,
          requestBody: { required: true, ...json(ref('CreateTokenRequest'), media.token) },
          responses: {
            ...tokenAnswer('200', 'A token already exists for this card with the same data'),
            ...tokenAnswer('201', 'A new token'),
            ...tokenAnswer('409', 'A token exists whose data differs: `conflicts` and the `tokens:conflicts` link'),
            ...errors(...COMMON_ERRORS, [403, 'tooManyTokensForNamespace']),
          },
        },
      },
      '/tokens/{tokenRef}': {
        parameters: [tokenRef],
        get: {
          operationId: 'getToken',
          summary: 'Retrieve a token (a use: may extend its expiry); on the conflicts link, with its conflicts',
          description: detokenizeNote,
          security: basic,
          responses: { ...tokenAnswer('200', 'The token'), ...errors(...COMMON_ERRORS, [404, 'resourceNotFound or endpointNotFound'], detokenizeRefused) },
        },
        put: {
          operationId: 'updateToken',
          summary: 'Update one field through its link, or resolve a conflict through tokens:conflicts',
          security: basic,
          requestBody: updateBody,
          responses: { 204: { description: 'Updated' }, ...errors(...COMMON_ERRORS, [404, 'resourceNotFound']) },
        },
        delete: {
          operationId: 'deleteToken',
          summary: 'Delete a token',
          security: basic,
          responses: { 204: { description: 'Deleted' }, ...errors(...COMMON_ERRORS, [404, 'resourceNotFound']) },
        },
      },
      '/payments/sales/migrateCardOnFile': {
        post: {
          operationId: 'sale',
          summary: 'Customer-initiated sale with stored card details, settled at once (v5)',
          security: basic,
          requestBody: { required: true, ...json(ref('SaleRequest'), media.saleRequest) },
          responses: { 201: { description: 'The outcome (approved or refused)', ...json(ref('SaleResponse'), media.saleResponse) }, ...errors(...COMMON_ERRORS) },
        },
      },
      ...paymentPaths(media),
      '/_sim/health': {
        get: {
          operationId: 'health',
          summary: 'Liveness and where the state lives (open even with --admin-token)',
          responses: {
            200: { description: 'Up', ...json(healthSchema('ok')) },
            503: { description: 'The Redis store cannot be reached', ...json(healthSchema('unavailable')) },
          },
        },
      },
      '/_sim/clock': {
        parameters: [tenant],
        get: { operationId: 'getClock', security: tenantControl, responses: { 200: { description: 'The clock', ...json(ref('Clock')) }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } },
        put: { operationId: 'setClock', security: tenantControl, requestBody: { required: true, ...json(jsonSchema(clockSetBody, 'input')) }, responses: { 200: { description: 'The clock', ...json(ref('Clock')) }, ...errors([400, 'bodyDoesNotMatchSchema, bodyIsEmpty, bodyIsNotJson or urlContainsInvalidValue'], tooLarge, [401, 'accessDenied'], forbidden) } },
      },
      '/_sim/clock/advance': {
        parameters: [tenant],
        post: { operationId: 'advanceClock', security: tenantControl, requestBody: { required: true, ...json(jsonSchema(clockAdvanceBody, 'input')) }, responses: { 200: { description: 'The clock', ...json(ref('Clock')) }, ...errors([400, 'bodyDoesNotMatchSchema, bodyIsEmpty, bodyIsNotJson or urlContainsInvalidValue'], tooLarge, [401, 'accessDenied'], forbidden) } },
      },
      '/_sim/reset': { parameters: [tenant], post: { operationId: 'reset', security: tenantControl, responses: { 204: { description: 'Tokens, journal, scenario counters and webhook deliveries deleted; configured tokens preloaded again' }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } } },
      '/_sim/tokens': {
        parameters: [tenant],
        get: {
          operationId: 'listTokens',
          security: tenantControl,
          parameters: pageParameters,
          responses: {
            200: { description: 'One page of live tokens, masked, with their tenants', ...json({ type: 'object', properties: { tokens: { type: 'array', items: ref('ControlToken') }, next }, required: ['tokens', 'next'] }) },
            ...errors([400, 'urlContainsInvalidValue (a tenant that is not a configured username, a bad limit or cursor)'], [401, 'accessDenied'], forbidden),
          },
        },
      },
      '/_sim/requests': {
        parameters: [tenant],
        get: {
          operationId: 'listRequests',
          security: tenantControl,
          parameters: journalParameters,
          responses: {
            200: {
              description: 'The oldest `limit` entries that pass the filter (newest last) and how many pass it, card data masked; with format=har, a HAR 1.2 document',
              ...json({ type: 'object', properties: { requests: { type: 'array', items: { type: 'object' } }, count: { type: 'integer', minimum: 0 }, next, log: { type: 'object', properties: { _next: next } } } }),
            },
            ...errors([400, 'urlContainsInvalidValue'], [401, 'accessDenied'], forbidden),
          },
        },
        delete: { operationId: 'clearRequests', security: tenantControl, responses: { 204: { description: 'Cleared' }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } },
      },
      '/_sim/state': {
        parameters: [tenant],
        get: { operationId: 'exportState', security: tenantControl, responses: { 200: { description: 'Everything, or one tenant\u2019s part (`?tenant=` or its Basic credentials), card numbers sealed', ...json(ref('StateExport')) }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } },
        put: { operationId: 'importState', security: tenantControl, requestBody: { required: true, ...json(ref('State')) }, responses: { 204: { description: 'Replaced (with a tenant: that tenant\u2019s part only)' }, ...errors([400, 'bodyDoesNotMatchSchema, bodyIsEmpty, bodyIsNotJson or urlContainsInvalidValue'], [401, 'accessDenied'], forbidden, [413, 'bodyIsTooLarge (over --state-limit)']) } },
      },
      '/_sim/scenarios': {
        parameters: [{ ...tenant, description: "One tenant's own scenario set (evaluated before the global set for its requests); without it, the global set" }],
        get: { operationId: 'listScenarios', security: tenantControl, responses: { 200: { description: 'The active scenarios', ...scenarioList }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } },
        put: {
          operationId: 'loadScenarios',
          security: tenantControl,
          requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [ref('Scenario'), { type: 'array', items: ref('Scenario') }] } }, 'application/yaml': { schema: ref('Scenario') } } },
          responses: { 200: { description: 'The active scenarios', ...scenarioList }, ...errors([400, 'bodyDoesNotMatchSchema, bodyIsEmpty, bodyIsNotJson or urlContainsInvalidValue'], tooLarge, [401, 'accessDenied'], forbidden) },
        },
        delete: { operationId: 'clearScenarios', security: tenantControl, responses: { 204: { description: 'Cleared' }, ...errors(unknownTenant, [401, 'accessDenied'], forbidden) } },
      },
      '/_sim/webhooks': {
        parameters: [tenant],
        get: {
          operationId: 'listWebhooks',
          summary: 'The webhook delivery log (docs/webhooks.md): the oldest `limit` deliveries that pass the filter, newest last',
          security: tenantControl,
          parameters: [
            query('state', 'Only deliveries in this state', { enum: ['pending', 'delivered', 'failed'] }),
            query('limit', 'At most this many deliveries (default 1000)', { type: 'integer', minimum: 0, maximum: 10000 }),
            query('cursor', 'The `next` of an earlier answer: the page after it', { type: 'string', minLength: 1 }),
          ],
          responses: {
            200: {
              description: 'One page of deliveries and how many pass the filter',
              ...json({
                type: 'object',
                properties: {
                  webhooks: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        seq: { type: 'integer', minimum: 1 },
                        eventId: { type: 'string' },
                        type: { type: 'string' },
                        url: { type: 'string' },
                        tenant: { type: 'string' },
                        attempts: { type: 'integer', minimum: 0 },
                        lastStatus: { type: ['integer', 'null'], description: 'The HTTP status of the last attempt; null before one, or on a network error or timeout' },
                        lastError: { type: ['string', 'null'] },
                        state: { enum: ['pending', 'delivered', 'failed'] },
                        enqueuedAt: { type: 'string', format: 'date-time' },
                        lastAttemptAt: { type: ['string', 'null'], format: 'date-time' },
                        finishedAt: { type: ['string', 'null'], format: 'date-time' },
                      },
                      required: ['seq', 'eventId', 'type', 'url', 'tenant', 'attempts', 'lastStatus', 'lastError', 'state', 'enqueuedAt', 'lastAttemptAt', 'finishedAt'],
                      additionalProperties: false,
                    },
                  },
                  count: { type: 'integer', minimum: 0 },
                  next,
                },
                required: ['webhooks', 'count', 'next'],
                additionalProperties: false,
              }),
            },
            ...errors([400, 'urlContainsInvalidValue (a tenant that is not a configured username, a bad state, limit or cursor)'], [401, 'accessDenied'], forbidden),
          },
        },
      },
      '/_sim/webhooks/flush': {
        parameters: [tenant],
        post: {
          operationId: 'flushWebhooks',
          summary: 'Answers once no webhook delivery (of the tenant) is queued, in flight or waiting to retry, or once `timeout` has passed',
          security: tenantControl,
          parameters: [query('timeout', 'Milliseconds to wait at most (default 30000)', { type: 'integer', minimum: 0, maximum: 60000 })],
          responses: {
            200: {
              description: '`flushed`: the queue emptied; `pending`: deliveries still queued, in flight or waiting to retry',
              ...json({ type: 'object', properties: { flushed: { type: 'boolean' }, pending: { type: 'integer', minimum: 0 } }, required: ['flushed', 'pending'], additionalProperties: false }),
            },
            ...errors([400, 'urlContainsInvalidValue (a tenant that is not a configured username, a bad timeout)'], [401, 'accessDenied'], forbidden),
          },
        },
      },
      '/_sim/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Metrics in the Prometheus text format: requests, latency, tokens, journal, RSS, event-loop lag (with --admin-token, the admin token alone opens it)',
          security: control,
          responses: {
            200: { description: 'The exposition text (format 0.0.4); per-tenant series for the 50 busiest tenants only', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
            ...errors([400, 'urlContainsInvalidValue (it takes no query parameter)'], [401, 'accessDenied']),
          },
        },
      },
      ...dashboardPaths({ tenant, tenantControl, forbidden, pageParameters }),
      '/_sim/openapi.json': { get: { operationId: 'openApi', security: tenantControl, responses: { 200: { description: 'This document', ...json({ type: 'object' }) }, ...errors([401, 'accessDenied']) } } },
    }),
  };
}

/**
 * The health body: its status, and the store (`memory`, or `redis` and whether it answers; `state: reset` and
 * when, once it was found to have lost its state, until a whole reset: decision 0041).
 */
function healthSchema(status: 'ok' | 'unavailable'): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      status: { const: status },
      store: {
        oneOf: [
          { type: 'object', properties: { kind: { const: 'memory' } }, required: ['kind'], additionalProperties: false },
          {
            type: 'object',
            properties: { kind: { const: 'redis' }, up: { type: 'boolean' }, state: { const: 'reset' }, at: { type: 'string', format: 'date-time' } },
            required: ['kind', 'up'],
            dependentRequired: { state: ['at'], at: ['state'] },
            additionalProperties: false,
          },
        ],
      },
    },
    required: ['status', 'store'],
    additionalProperties: false,
  };
}

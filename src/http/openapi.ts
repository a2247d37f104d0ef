/**
 * The OpenAPI 3.1 document of the simulated API and the control API, generated from the zod schemas the
 * server validates with (zod 4's JSON Schema output), so it cannot drift from what is enforced.
 */
import { stateSchema } from '../control/state.js';
import { scenarioSchema } from '../scenarios/schema.js';
import { mediaTypesFor, type MediaTypes } from './media.js';
import { clockResponse, controlTokenResponse, errorResponse, saleResponse, tokenResponse } from './openapi-schemas.js';
import { COMMON_ERRORS, errors, json, jsonSchema, query, ref, withBrowserRules, type Schema } from './openapi-parts.js';
import { controlPaths } from './admin/openapi-paths.js';
import { paymentPaths, paymentSchemas } from './openapi-payments.js';
import { paymentQueryPaths, paymentQuerySchemas } from './openapi-payment-queries.js';
import { maskedShape, sealedScenario } from './openapi-shapes.js';
import { saleBody } from '../wire/sale-schemas.js';
import { billingAddress, cardHolderName, createTokenBody, description, schemeTransactionReference, updateCardExpiryDate } from '../wire/schemas.js';

export interface OpenApiOptions {
  vendor: string;
  /** The server URL to advertise; `http://127.0.0.1:8080` when absent. */
  baseUrl?: string;
  version: string;
}

export function openApiDocument(options: OpenApiOptions): Schema {
  const media = mediaTypesFor(options.vendor);
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
      schemas: schemas(),
    },
    paths: withBrowserRules({
      ...tokenPaths(media),
      ...paymentPaths(media),
      ...paymentQueryPaths(media),
      ...controlPaths(),
    }),
  };
}

/** The schemas the paths refer to, from the zod schemas the server validates with. */
function schemas(): Record<string, Schema> {
  const scenario = jsonSchema(scenarioSchema, 'input');
  const state = jsonSchema(stateSchema, 'output');
  // A snapshot's scenario sets carry sealed card numbers (control/state.ts sealScenarioSets).
  const sets = (state.properties as Record<string, Schema>).scenarios!;
  sets.additionalProperties = { type: 'array', items: ref('SnapshotScenario') };
  // What GET /_sim/state sends: the same, after /_sim's masking (the scenario items inline: a $ref would
  // point at the unmasked SnapshotScenario).
  const exportSets = { ...sets, additionalProperties: { type: 'array', items: sealedScenario(scenario) } };
  const stateExport = maskedShape({ ...state, properties: { ...(state.properties as Schema), scenarios: exportSets } }, 'A state export: a State, with card data masked in its texts');
  return {
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
    ...paymentQuerySchemas(),
    Error: jsonSchema(errorResponse, 'output'),
    ControlToken: jsonSchema(controlTokenResponse, 'output'),
    Clock: jsonSchema(clockResponse, 'output'),
    State: state,
    StateExport: stateExport,
    Scenario: scenario,
    SnapshotScenario: sealedScenario(scenario),
    ScenarioEcho: maskedShape(scenario, 'A scenario as /_sim answers it: card numbers masked (first and last four digits kept), also inside texts'),
  };
}

/** The token service's paths and the sale. */
function tokenPaths(media: MediaTypes): Record<string, Schema> {
  const tokenRef = { name: 'tokenRef', in: 'path', required: true, description: 'The opaque ref at the end of a token link (`tokens:token`, a per-field link or `tokens:conflicts`)', schema: { type: 'string' } };
  const detokenizeNote = `\`Accept: ${media.token}; masked=false\` answers \`paymentInstrument.type: card/front\` with the full \`cardNumber\`, for a credential with \`detokenize: true\` in its fixtures; any other credential gets 403 merchantIsNotConfigured.`;
  const detokenizeRefused: [number, string] = [403, 'merchantIsNotConfigured (masked=false from a credential not allowed to detokenize)'];
  const basic = [{ basicAuth: [] }];
  const tokenAnswer = (status: string, text: string): Schema => ({ [status]: { description: text, ...json(ref('Token'), media.token) } });
  return {
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
        requestBody: updateBody(media),
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
  };
}

/** A field update's body: the bare new value, shaped by the link the ref came from. */
function updateBody(media: MediaTypes): Schema {
  return {
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
}

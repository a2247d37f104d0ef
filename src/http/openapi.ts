/** The OpenAPI 3.1 document of the API and of /_sim, from the zod schemas the server validates with: it cannot drift. */
import { stateSchema } from '../control/state.js';
import { scenarioSchema } from '../scenarios/schema.js';
import { mediaTypesFor, type MediaTypes } from './media.js';
import * as answers from './openapi-schemas.js';
import { COMMON_ERRORS, answer, body, errors, jsonSchema, pathParam, query, ref, type Operation, type Schema } from './openapi-parts.js';
import { API_ROUTES, type ApiRoute } from './routes.js';
import { CONTROL_TABLE, documentedPath, type Access, type ControlOperation } from './admin/table.js';
import { partialRefundBody, saleBody } from '../wire/sale-schemas.js';
import { billingAddress, cardHolderName, createTokenBody, description, schemeTransactionReference, updateCardExpiryDate, type ApiOperation } from '../wire/schemas.js';

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
    paths: { ...apiPaths(media), ...controlPaths() },
  };
}

function schemas(): Record<string, Schema> {
  const scenario = jsonSchema(scenarioSchema, 'input');
  const state = jsonSchema(stateSchema, 'output');
  // A snapshot's scenario sets carry sealed card numbers (control/state.ts sealScenarioSets).
  const sets = (state.properties as Record<string, Schema>).scenarios!;
  sets.additionalProperties = { type: 'array', items: ref('SnapshotScenario') };
  // GET /_sim/state's answer: the same, masked (scenario items inline: a $ref would name the unmasked one).
  const exportSets = { ...sets, additionalProperties: { type: 'array', items: sealedScenario(scenario) } };
  const stateExport = maskedShape({ ...state, properties: { ...(state.properties as Schema), scenarios: exportSets } }, 'A state export: a State, with card data masked in its texts');
  return {
    CreateTokenRequest: jsonSchema(createTokenBody, 'input'),
    Token: jsonSchema(answers.tokenResponse, 'output'),
    TokenList: {
      type: 'object',
      description: 'The answer of a token query (HAL): live tokens as GET of each answers them, oldest first',
      properties: { _embedded: { type: 'object', properties: { tokens: { type: 'array', items: ref('Token') } }, required: ['tokens'] } },
      required: ['_embedded'],
    },
    SaleRequest: jsonSchema(saleBody, 'input'),
    SaleResponse: jsonSchema(answers.saleResponse, 'output'),
    PartialRefundRequest: jsonSchema(partialRefundBody, 'input'),
    PaymentAction: jsonSchema(answers.paymentActionResponse, 'output'),
    PaymentEvents: jsonSchema(answers.paymentEventsResponse, 'output'),
    PaymentQueryList: jsonSchema(answers.paymentQueryListResponse, 'output'),
    PaymentQuery: jsonSchema(answers.paymentQueryResponse, 'output'),
    Error: jsonSchema(answers.errorResponse, 'output'),
    ControlToken: jsonSchema(answers.controlTokenResponse, 'output'),
    Clock: jsonSchema(answers.clockResponse, 'output'),
    State: state,
    StateExport: stateExport,
    Scenario: scenario,
    SnapshotScenario: sealedScenario(scenario),
    ScenarioEcho: maskedShape(scenario, 'A scenario as /_sim answers it: card numbers masked (first and last four digits kept), also inside texts'),
  };
}

/* What /_sim answers, derived from what it reads (decision 0024): snapshots seal card numbers, answers mask them. */
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `schema.properties[a].items.properties[b]…` along `path` (`[]` is an array's items), or undefined. */
function at(schema: Schema, path: readonly string[]): Schema | undefined {
  let node: unknown = schema;
  for (const step of path) {
    if (!isSchema(node)) return undefined;
    node = step === '[]' ? node.items : isSchema(node.properties) ? node.properties[step] : undefined;
  }
  return isSchema(node) ? node : undefined;
}

const SEALED = { type: 'string', minLength: 1, description: 'The card number, sealed with the simulator’s keys (in snapshots, in place of cardNumber)' };

/** A scenario as a snapshot carries it (sealScenarioSets): `sealedCardNumber` or `cardNumber` in tokens and `when`, never both. */
function sealedScenario(scenario: Schema): Schema {
  const copy = structuredClone(scenario);
  const card = at(copy, ['tokens', '[]', 'paymentInstrument']);
  if (card && isSchema(card.properties)) {
    card.properties.sealedCardNumber = SEALED;
    card.required = (Array.isArray(card.required) ? (card.required as string[]) : []).filter((k) => k !== 'cardNumber');
    card.oneOf = [{ required: ['cardNumber'] }, { required: ['sealedCardNumber'] }];
  }
  const when = at(copy, ['rules', '[]', 'when']);
  if (when && isSchema(when.properties)) {
    when.properties.sealedCardNumber = SEALED;
    when.not = { required: ['cardNumber', 'sealedCardNumber'] };
  }
  copy.description = 'A scenario in a snapshot: card numbers sealed (sealedCardNumber) in place of cardNumber';
  return copy;
}

/** A value after /_sim's masking (wire/mask.ts): no text pattern holds; a number that is a card number becomes text. */
function maskedShape(schema: Schema, description: string): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isSchema(node)) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') continue;
      // `properties`, `$defs` and the like map names to schemas: keep the names, walk the schemas.
      out[key] = key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, walk(v)])) : walk(value);
    }
    if (out.type === 'integer' || out.type === 'number') out.type = [out.type, 'string'];
    return out;
  };
  return { ...(walk(schema) as Schema), description };
}

const TENANT = { name: 'tenant', in: 'query', required: false, description: 'One tenant (a configured username); without it the call acts on every tenant', schema: { type: 'string', minLength: 1 } };

/** Nobody without --admin-token, the admin token, a tenant's Basic credentials (decision 0026). */
const TENANT_CONTROL = [{}, { adminBearer: [] }, { basicAuth: [] }];
const SECURITY: Record<Access, unknown[] | undefined> = {
  open: undefined,
  admin: [{}, { adminBearer: [] }],
  tenant: TENANT_CONTROL,
  stream: [...TENANT_CONTROL, { adminQuery: [] }],
};

const DENIED: [number, string] = [401, 'accessDenied'];
const UNKNOWN_TENANT: [number, string] = [400, 'urlContainsInvalidValue (a tenant that is not a configured username)'];
const OTHER_TENANT = 'operationIsNotAllowed (a tenant\u2019s Basic credentials naming another tenant)';
const CROSS_SITE = 'headerHasInvalidValue (Origin, or Sec-Fetch-Site: cross-site: a write from another site)';

/** The refusals a row implies: access, `?tenant=`, and a write's browser refusals (decision 0042). */
function refusals(op: ControlOperation, path: string): [number, string][] {
  const write = op.method !== 'GET';
  const forbidden = [...(op.tenant ? [OTHER_TENANT] : []), ...(write ? [CROSS_SITE] : [])];
  const out: [number, string][] = op.tenant ? [UNKNOWN_TENANT] : [];
  if (forbidden.length > 0) out.push([403, forbidden.join('; or ')]);
  if (op.access !== 'open') out.push(DENIED);
  if (write) out.push([415, 'headerHasInvalidValue (Content-Type): a body must be application/json' + (path === '/_sim/scenarios' ? ' or application/yaml' : '')]);
  return out;
}

/** The /_sim paths, from the control table: one operation per row, its security from who may call it. */
function controlPaths(): Record<string, Schema> {
  const paths: Record<string, Schema> = {};
  for (const op of CONTROL_TABLE) {
    const { summary, description, pathParameters = [], tenantText, parameters, requestBody, responses } = op.doc();
    const path = documentedPath(op);
    if (paths[path] === undefined) {
      const tenant = op.tenant ? [{ ...TENANT, ...(tenantText !== undefined && { description: tenantText }) }] : [];
      paths[path] = tenant.length + pathParameters.length > 0 ? { parameters: [...tenant, ...pathParameters] } : {};
    }
    const given = { operationId: op.operationId, summary, description, security: SECURITY[op.access], parameters, requestBody };
    const operation = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    paths[path][op.method.toLowerCase()] = { ...operation, responses: { ...errors(...refusals(op, path)), ...responses } };
  }
  return paths;
}

/** The API's paths: path, methods, operationIds and path parameters from routes.ts; the rest from operationDocs. */
function apiPaths(media: MediaTypes): Record<string, Schema> {
  const docs = operationDocs(media);
  return Object.fromEntries(API_ROUTES.map((route) => [routePath(route), pathItem(route, docs)]));
}

const routePath = (route: ApiRoute): string => (route.param ? route.pattern.replace(':ref', `{${route.param.name}}`) : route.pattern);

function pathItem(route: ApiRoute, docs: Readonly<Record<string, Operation>>): Schema {
  const { param } = route;
  const item: Schema = param ? { parameters: [pathParam(param.name, param.description)] } : {};
  for (const [method, name] of Object.entries(route.methods)) {
    if (method === 'HEAD' || name === undefined) continue;
    const operationId = route.operationId ?? name;
    const doc = docs[operationId];
    if (doc === undefined) throw new Error(`The OpenAPI document has no text for ${operationId}`);
    item[method.toLowerCase()] = { operationId, ...doc, security: [{ basicAuth: [] }] };
  }
  return item;
}

/** By operationId: each operation's name, or the route's own operationId where one operation serves two routes. */
function operationDocs(media: MediaTypes): Record<ApiOperation, Operation> & Record<string, Operation> {
  const detokenize = `\`Accept: ${media.token}; masked=false\` answers \`paymentInstrument.type: card/front\` with the full \`cardNumber\`, for a credential with \`detokenize: true\` in its fixtures; any other credential gets 403 merchantIsNotConfigured.`;
  const detokenizeRefused: [number, string] = [403, 'merchantIsNotConfigured (masked=false from a credential not allowed to detokenize)'];
  const token = (text: string): Schema => answer(text, ref('Token'), media.token);
  const accepted = { 202: answer('Accepted: links to the actions allowed next and to the events', ref('PaymentAction'), media.saleResponse) };
  const paymentErrors = errors(...COMMON_ERRORS, [404, 'resourceNotFound'], [409, 'actionIsNotAllowed']);
  const notFound = errors(...COMMON_ERRORS, [404, 'resourceNotFound']);
  return {
    queryTokens: {
      summary: 'Find tokens by namespace (any merchant entity) or by tokenId; both: a token must match both. Not a use: no expiry moves',
      description: detokenize,
      parameters: [
        query('namespace', 'The tenant\u2019s live tokens in this namespace, oldest first', { type: 'string', minLength: 1 }),
        query('tokenId', 'The token with this id, or none', { type: 'string', minLength: 1 }),
      ],
      responses: { 200: answer('The tokens found (maybe none)', ref('TokenList'), media.token), ...errors(...COMMON_ERRORS, detokenizeRefused) },
    },
    createToken: {
      summary: 'Create a token (or answer the existing one, or a conflict)',
      requestBody: body(ref('CreateTokenRequest'), media.token),
      responses: {
        200: token('A token already exists for this card with the same data'),
        201: token('A new token'),
        409: token('A token exists whose data differs: `conflicts` and the `tokens:conflicts` link'),
        ...errors(...COMMON_ERRORS, [403, 'tooManyTokensForNamespace']),
      },
    },
    getToken: {
      summary: 'Retrieve a token (a use: may extend its expiry); on the conflicts link, with its conflicts',
      description: detokenize,
      responses: { 200: token('The token'), ...errors(...COMMON_ERRORS, [404, 'resourceNotFound or endpointNotFound'], detokenizeRefused) },
    },
    updateToken: {
      summary: 'Update one field through its link, or resolve a conflict through tokens:conflicts',
      requestBody: updateBody(media),
      responses: { 204: answer('Updated'), ...notFound },
    },
    deleteToken: { summary: 'Delete a token', responses: { 204: answer('Deleted'), ...notFound } },
    sale: {
      summary: 'Customer-initiated sale with stored card details, settled at once (v5)',
      requestBody: body(ref('SaleRequest'), media.saleRequest),
      responses: { 201: answer('The outcome (approved or refused)', ref('SaleResponse'), media.saleResponse), ...errors(...COMMON_ERRORS) },
    },
    refund: { summary: 'Refund what remains of the sale (the `payments:refund` link); no body', responses: { ...accepted, ...paymentErrors } },
    partialRefund: {
      summary: 'Refund part of the sale (the `payments:partialRefund` link), in its currency, within what remains',
      requestBody: body(ref('PartialRefundRequest'), media.saleRequest),
      responses: { ...accepted, ...paymentErrors },
    },
    reversal: { summary: 'Reverse the sale (the `payments:reversal` link): cancelled before settlement, sent for refund after; no body', responses: { ...accepted, ...paymentErrors } },
    paymentEvents: {
      summary: 'The payment\u2019s last event by the virtual now (the `payments:events` link)',
      responses: { 200: answer('The last event and what may follow', ref('PaymentEvents'), media.saleResponse), ...notFound },
    },
    paymentQuery: {
      summary: 'Find the tenant\u2019s payments by transactionReference (what happened to a sale whose answer was lost)',
      parameters: [{ ...query('transactionReference', 'The transactionReference of the sale', { type: 'string', minLength: 1 }), required: true }],
      responses: { 200: answer('The payments found (maybe none)', ref('PaymentQueryList'), media.paymentQueries), ...errors(...COMMON_ERRORS) },
    },
    paymentQueryById: {
      summary: 'One payment of the tenant (the `self` link of a payment query\u2019s answer), with its events',
      responses: { 200: answer('The payment', ref('PaymentQuery'), media.paymentQueries), ...notFound },
    },
  };
}

/** A field update's body: the bare new value, shaped by the link the ref came from. */
function updateBody(media: MediaTypes): Schema {
  const values = { description, cardHolderName, cardExpiryDate: updateCardExpiryDate, billingAddress, schemeTransactionReference };
  return {
    required: false,
    description: 'The bare new value; its shape follows the link the ref came from (none for tokens:conflicts)',
    content: { [media.token]: { schema: { oneOf: Object.entries(values).map(([title, schema]) => ({ ...jsonSchema(schema, 'input'), title })) } } },
  };
}

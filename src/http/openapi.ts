/**
 * The OpenAPI 3.1 document of the simulated API and the control API, generated from the zod schemas the
 * server validates with (zod 4's JSON Schema output), so it cannot drift from what is enforced.
 */
import { stateSchema } from '../control/state.js';
import { scenarioSchema } from '../scenarios/schema.js';
import { mediaTypesFor } from './media.js';
import * as answers from './openapi-schemas.js';
import { jsonSchema, ref, type Schema } from './openapi-parts.js';
import { apiPaths } from './api-docs.js';
import { controlPaths } from './admin/openapi-paths.js';
import { partialRefundBody, saleBody } from '../wire/sale-schemas.js';
import { createTokenBody } from '../wire/schemas.js';

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

/*
 * JSON Schemas of what /_sim answers, derived from the schemas of what it reads (decision 0024): a snapshot
 * carries its scenario sets' card numbers sealed, and every /_sim answer has card data masked.
 */
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

/**
 * A scenario as a state snapshot carries it (control/state.ts sealScenarioSets): `sealedCardNumber` in place
 * of `cardNumber` in preloaded tokens and in `when`; an import takes either, never both.
 */
export function sealedScenario(scenario: Schema): Schema {
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

/**
 * The shape of a value after /_sim's masking (wire/mask.ts): a card number kept to its first and last four
 * digits, and card numbers starred inside any text, so no text pattern holds; a number that is itself a card
 * number becomes masked text. Types, required fields and lengths stay.
 */
export function maskedShape(schema: Schema, description: string): Schema {
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

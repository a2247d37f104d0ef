/** The building blocks of the OpenAPI document: zod to JSON Schema, references, JSON content, error answers. */
import * as z from 'zod';

export type Schema = Record<string, unknown>;

/** What the document says of an operation: its summary, parameters, body and answers. */
export interface Operation {
  summary?: string;
  description?: string;
  parameters?: Schema[];
  requestBody?: Schema;
  responses: Record<string, Schema>;
}

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Schema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Schema;
  delete out.$schema; // the document's dialect is declared once, by OpenAPI 3.1
  return out;
}

export const query = (name: string, description: string, schema: object): Schema => ({ name, in: 'query', required: false, description, schema });
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Schema, type = 'application/json'): Schema => ({ content: { [type]: { schema } } });
/** A request body the operation requires. */
export const body = (schema: Schema, type?: string): Schema => ({ required: true, ...json(schema, type) });
/** An answer: what it means, and the schema of its body (JSON unless `type` says otherwise) when it has one. */
export const answer = (description: string, schema?: Schema, type?: string): Schema => ({ description, ...(schema && json(schema, type)) });
export const pathParam = (name: string, description: string, schema: object = { type: 'string' }): Schema => ({ name, in: 'path', required: true, description, schema });
export const errors = (...codes: [number, string][]): Record<string, Schema> =>
  Object.fromEntries(codes.map(([status, text]) => [String(status), answer(text, ref('Error'))]));
export const COMMON_ERRORS: [number, string][] = [
  [400, 'headerIsMissing, headerHasInvalidValue, bodyIsEmpty, bodyIsNotJson, bodyDoesNotMatchSchema, urlContainsInvalidValue or a business rule'],
  [401, 'accessDenied'],
  [405, 'methodNotAllowed'],
  [406, 'headerHasInvalidValue (Accept)'],
  [413, 'bodyIsTooLarge'],
  [415, 'headerHasInvalidValue (Content-Type)'],
  [500, 'internalErrorOccurred (the sandbox\u2019s scripted ERROR, or a scenario)'],
  [503, 'serviceUnavailable (scenarios)'],
];

/** An operation of the /_sim document, less what the row says: its security, its path's `tenant` parameter and their refusals. */
export interface OperationDoc extends Operation {
  /** The path's own parameters (after `tenant`): given on the path's first row. */
  pathParameters?: Schema[];
  /** Another description of the path's `tenant` parameter: given on the path's first row. */
  tenantText?: string;
}

/** The 400 of a query: a tenant that is not a configured username, or `what`. */
export const badQuery = (what: string): [number, string] => [400, `urlContainsInvalidValue (a tenant that is not a configured username, ${what})`];

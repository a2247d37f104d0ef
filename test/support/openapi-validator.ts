/**
 * Checks JSON values against the schemas of a served OpenAPI 3.1 document with ajv (JSON Schema 2020-12 and
 * the formats of ajv-formats), `$ref`s into the document's components resolved (decision 0024).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type Schema = { [key: string]: unknown };

export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
}

const DOC_ID = 'urn:token-sim:openapi';

/** A compiler of the document's schemas (cached per schema object); refs like `#/components/schemas/Token` resolve. */
export function schemaValidator(doc: OpenApiDoc): (schema: Schema) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
  const cache = new Map<Schema, ValidateFunction>();
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) {
      const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`);
      validate = ajv.compile({ ...(JSON.parse(text) as Schema), $id: `urn:token-sim:inline:${cache.size}` });
      cache.set(schema, validate);
    }
    return validate;
  };
}

/** The documented schema of an answer: `responses[status].content[mediaType].schema`. */
export function responseSchema(doc: OpenApiDoc, path: string, method: string, status: number, mediaType = 'application/json'): Schema {
  const op = doc.paths[path]?.[method] as { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> } | undefined;
  const schema = op?.responses?.[String(status)]?.content?.[mediaType]?.schema;
  if (!schema) throw new Error(`${method.toUpperCase()} ${path} documents no ${status} answer as ${mediaType}`);
  return schema;
}

/** The problems of `value` against `schema`, as readable lines (empty when it validates). */
export function problemsOf(validatorOf: (schema: Schema) => ValidateFunction, schema: Schema, value: unknown): string[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

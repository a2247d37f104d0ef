/**
 * Parsing a document that may be large and wrong (contract 4.1): zod examines all of it first (a 1 MiB list of
 * wrong items: hundreds of megabytes of issues), so long lists are examined item by item first, stopping past
 * MAX_PROBLEMS.
 */
import type * as z from 'zod';
import { MAX_PROBLEMS, schemaError } from './problems.js';
import { parseBody, toFieldProblems } from './validation.js';

/** Lists longer than this are examined item by item before the document as a whole. */
export const LONG_LIST = 16;

type Issue = z.core.$ZodIssue;

/** Wrappers looked through to the schema they hold. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'readonly']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Adds the issues of long lists at any depth in `data` to `found`, item by item, until they weigh more than MAX_PROBLEMS: the weight. */
function examine(schema: z.core.$ZodType, data: unknown, path: PropertyKey[], found: Issue[], weight: number): number {
  let def = (schema as z.core.$ZodTypes)._zod.def;
  while (WRAPPERS.has(def.type) && 'innerType' in def) def = (def.innerType as z.core.$ZodTypes)._zod.def;
  if (def.type === 'object' && isRecord(data)) {
    for (const [key, field] of Object.entries(def.shape)) {
      if (weight > MAX_PROBLEMS) break;
      if (Object.hasOwn(data, key)) weight = examine(field, data[key], [...path, key], found, weight);
    }
    return weight;
  }
  if (def.type !== 'array' || !Array.isArray(data)) return weight;
  const long = data.length > LONG_LIST;
  for (let i = 0; i < data.length && weight <= MAX_PROBLEMS; i++) {
    const before = found.length;
    weight = examine(def.element, data[i], [...path, i], found, weight);
    // An item whose own lists were wrong already said so; one that was not is examined whole.
    if (!long || found.length > before || weight > MAX_PROBLEMS) continue;
    const result = (def.element as z.ZodType).safeParse(data[i]);
    if (result.success) continue;
    for (const issue of result.error.issues) {
      found.push({ ...issue, path: [...path, i, ...issue.path] });
      // An unknown-keys issue makes one problem per key.
      weight += issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
    }
  }
  return weight;
}

/** `parseBody` for documents that may be large: more than MAX_PROBLEMS in the long lists' items are the answer. */
export function parseBounded<S extends z.ZodType>(schema: S, body: unknown, rootLabel = 'body'): z.output<S> {
  const found: Issue[] = [];
  if (examine(schema, body, [], found, 0) > MAX_PROBLEMS) throw schemaError(toFieldProblems(found, body, rootLabel, schema));
  return parseBody(schema, body, rootLabel);
}

/** zod issues → the spec's validation items {errorName, message, jsonPath}. */
import type * as z from 'zod';
import { isCardDataKey } from './mask.js';
import { MAX_PROBLEMS, schemaError, type FieldErrorName, type FieldPath, type FieldProblem } from './problems.js';
import { definedFieldsAt, meantValueHint, notAllowedMessage } from './unknown-fields.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** ['paymentInstrument', 'cardNumber'] → `$.paymentInstrument.cardNumber`; [] → `$`; ['items', 0] → `$.items[0]`. */
export function toJsonPath(path: FieldPath): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `['${segment.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
  }
  return out;
}

const TYPE_ERRORS: Record<string, FieldErrorName> = {
  string: 'fieldMustBeString',
  // Every numeric field of both APIs is an integer.
  number: 'fieldMustBeInteger',
  int: 'fieldMustBeInteger',
  boolean: 'fieldMustBeBoolean',
  object: 'fieldMustBeObject',
  array: 'fieldMustBeArray',
};

/** The message of each problem that says the same of any field (after its name); a string has its own. */
const FIXED_MESSAGES: Partial<Record<FieldErrorName, string>> = {
  fieldIsMissing: 'is required',
  fieldIsNull: 'must not be null',
  fieldMustBeInteger: 'must be an integer',
  fieldMustBeBoolean: 'must be a boolean',
  fieldMustBeObject: 'must be a JSON object',
  fieldMustBeArray: 'must be an array',
};

function valueAt(root: unknown, path: FieldPath): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function errorNameOf(issue: z.core.$ZodIssue, value: unknown): FieldErrorName {
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    if (value === undefined) return 'fieldIsMissing';
    if (value === null) return 'fieldIsNull';
  }
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_ERRORS[issue.expected] ?? 'fieldHasInvalidValue';
    case 'too_small':
      return issue.origin === 'string' ? 'stringIsTooShort' : 'integerIsTooSmall';
    case 'too_big':
      return issue.origin === 'string' ? 'stringIsTooLong' : 'integerIsTooLarge';
    case 'invalid_format':
      return issue.format === 'datetime' ? 'dateHasInvalidFormat' : 'stringFailedRegexCheck';
    case 'custom':
      return (issue.params as { errorName?: FieldErrorName } | undefined)?.errorName ?? 'fieldHasInvalidValue';
    default:
      return 'fieldHasInvalidValue';
  }
}

/** Keys whose values no message repeats: card data (as masking knows it) and passwords or secrets. */
const isSecretKey = (key: string | number): boolean => typeof key === 'string' && (isCardDataKey(key) || /password|secret/i.test(key));

/** `refusalCode must be a string, not the number 51: quote it`, named as read (decision 0045) unless under a secret key (messages are logged). */
export function mustBeStringMessage(label: string, value: unknown, path: FieldPath): string {
  const base = `${label} must be a string`;
  if (typeof value !== 'number' && typeof value !== 'boolean') return base;
  const secret = isSecretKey(label) || path.some(isSecretKey);
  return `${base}, not ${secret ? `a ${typeof value}` : `the ${typeof value} ${String(value)}`}: quote it`;
}

/** The values an issue says its field may take (a oneOf, a literal, an enum, a union's discriminator); [] when it names none. */
function allowedValuesOf(issue: z.core.$ZodIssue): readonly string[] {
  let values: readonly unknown[] = [];
  if (issue.code === 'invalid_value') values = issue.values;
  else if (issue.code === 'invalid_union' && 'options' in issue && issue.options !== undefined) values = issue.options;
  else if (issue.code === 'custom' && Array.isArray(issue.params?.values)) values = issue.params.values as unknown[];
  return values.filter((v): v is string => typeof v === 'string');
}

function messageOf(errorName: FieldErrorName, issue: z.core.$ZodIssue, label: string, value: unknown, path: FieldPath): string {
  if (errorName === 'fieldMustBeString') return mustBeStringMessage(label, value, path);
  return `${label} ${FIXED_MESSAGES[errorName] ?? issue.message + meantValueHint(value, allowedValuesOf(issue))}`;
}

/**
 * One problem per offending field (the first rule it breaks), in zod's order; an unknown key is a
 * `fieldIsNotAllowed` at its own path, hinted from the fields `schema` defines there. Stops past MAX_PROBLEMS.
 */
export function toFieldProblems(issues: readonly z.core.$ZodIssue[], root: unknown, rootLabel: string, schema?: z.core.$ZodType): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    if (problems.length > MAX_PROBLEMS) break;
    const path = issue.path.map((s) => (typeof s === 'number' ? s : String(s)));
    if (issue.code === 'unrecognized_keys') {
      const fields = schema ? definedFieldsAt(schema, path) : [];
      // An unknown key has no schema, so no other issue can name its path.
      for (const key of issue.keys) {
        if (problems.length > MAX_PROBLEMS) break;
        problems.push({ errorName: 'fieldIsNotAllowed', message: notAllowedMessage(key, fields), path: [...path, key] });
      }
      continue;
    }
    const key = toJsonPath(path);
    if (seen.has(key)) continue;
    seen.add(key);
    const last = path.findLast((s) => typeof s === 'string');
    const label = typeof last === 'string' ? last : rootLabel;
    const value = valueAt(root, path);
    const errorName = errorNameOf(issue, value);
    problems.push({ errorName, message: messageOf(errorName, issue, label, value, path), path });
  }
  return problems;
}

/** Parses a JSON value with a schema; throws bodyDoesNotMatchSchema listing every offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, rootLabel = 'body'): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw schemaError(toFieldProblems(result.error.issues, body, rootLabel, schema));
}

// A large, wrong document (contract 4.1): zod would list every issue first, so long lists are examined item by item first.

/** Lists longer than this are examined item by item before the document as a whole. */
const LONG_LIST = 16;

/** Wrappers looked through to the schema they hold. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'readonly']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Adds the issues of long lists at any depth in `data` to `found`, item by item, until they weigh more than MAX_PROBLEMS: the weight. */
function examine(schema: z.core.$ZodType, data: unknown, path: PropertyKey[], found: z.core.$ZodIssue[], weight: number): number {
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
  const found: z.core.$ZodIssue[] = [];
  if (examine(schema, body, [], found, 0) > MAX_PROBLEMS) throw schemaError(toFieldProblems(found, body, rootLabel, schema));
  return parseBody(schema, body, rootLabel);
}

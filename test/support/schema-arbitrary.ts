/**
 * fast-check arbitraries from JSON Schema (the 2020-12 subset zod writes into the OpenAPI document): valid
 * values of a schema, and mutations of them (a node of the wrong type or out of range, a missing field, an
 * unknown field). Used by the OpenAPI-driven fuzzer (test/http/openapi-fuzz.test.ts, decision 0024).
 */
import fc from 'fast-check';

export type Schema = { [key: string]: unknown };

export interface SchemaArbitraryOptions {
  /** Resolves a `$ref` (`#/components/schemas/Token`). */
  resolve: (ref: string) => Schema;
  /**
   * Realistic values for a property name (a Luhn-valid card number, a configured entity), mixed with the
   * schema's own values so that generated requests get past business rules as well as validation.
   */
  hints?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** How deep optional properties and array items go (default 5). */
  maxDepth?: number;
}

const INT32 = 2 ** 31 - 1;
const clampInt = (n: number): number => Math.max(-INT32, Math.min(INT32, n));

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Instants from year 0001 to 9999 (the clock's range), biased to the decades around the test clock. */
const epochMs = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2060, 0, 1) }) },
  { weight: 1, arbitrary: fc.integer({ min: -62135596800000, max: 253402300799999 }) },
);
const dateTime = epochMs.map((ms) => new Date(ms).toISOString());
const date = epochMs.map((ms) => new Date(ms).toISOString().slice(0, 10));

/** `^[class]*$` with length bounds becomes `^[class]{min,max}$`, which generates without filtering. */
function boundedPattern(pattern: string, min: number, max: number): RegExp {
  const bare = /^\^(\[[^\]]+\])\*\$$/.exec(pattern);
  return new RegExp(bare ? `^${bare[1]}{${min},${max}}$` : pattern);
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(min + 24, 24);
  const fits = (s: string): boolean => s.length >= min && s.length <= max;
  if (schema.format === 'date-time') return dateTime;
  if (schema.format === 'date') return date;
  if (typeof schema.pattern === 'string') {
    const regex = boundedPattern(schema.pattern, min, max);
    const plain = new RegExp(schema.pattern);
    try {
      return fc.stringMatching(regex).filter((s) => fits(s) && plain.test(s));
    } catch {
      // Lookaheads and the like: plain strings that happen to match.
      return fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }).filter((s) => plain.test(s));
    }
  }
  const edges = [min, max].filter((n) => n <= 1000).map((n) => 'x'.repeat(n));
  return fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 24), unit: 'binary' }) }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const lower = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : -Number.MAX_SAFE_INTEGER;
  const upper = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : Number.EPSILON) : Number.MAX_SAFE_INTEGER;
  const edges = fc.constantFrom(lower, upper);
  if (integer) {
    const small = fc.integer({ min: clampInt(Math.max(lower, -1000)), max: clampInt(Math.min(upper, 100_000)) });
    return fc.oneof({ weight: 4, arbitrary: lower <= upper ? small : edges }, { weight: 1, arbitrary: edges });
  }
  return fc.oneof({ weight: 4, arbitrary: fc.double({ min: lower, max: upper, noNaN: true, noDefaultInfinity: true }) }, { weight: 1, arbitrary: edges });
}

/** Valid values of `schema`. */
export function valuesOf(root: Schema, options: SchemaArbitraryOptions): fc.Arbitrary<unknown> {
  const maxDepth = options.maxDepth ?? 5;
  const hints = options.hints ?? {};

  const of = (schema: Schema, depth: number): fc.Arbitrary<unknown> => {
    if (typeof schema.$ref === 'string') return of(options.resolve(schema.$ref), depth);
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) {
        const rest = { ...schema };
        delete rest[key];
        return fc.oneof(...branches.filter(isSchema).map((b) => of({ ...rest, ...b }, depth)));
      }
    }
    const type = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
    if (type.length > 1) return fc.oneof(...type.map((t) => of({ ...schema, type: t }, depth)));
    switch (type[0]) {
      case 'string':
        return stringArbitrary(schema);
      case 'integer':
        return numberArbitrary(schema, true);
      case 'number':
        return numberArbitrary(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const items = isSchema(schema.items) ? schema.items : {};
        if (depth >= maxDepth) return fc.constant([]);
        return fc.array(of(items, depth + 1), { maxLength: Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 3) });
      }
      case 'object':
        return objectOf(schema, depth);
      default:
        return isSchema(schema.properties) ? objectOf(schema, depth) : fc.jsonValue({ maxDepth: 2 });
    }
  };

  const objectOf = (schema: Schema, depth: number): fc.Arbitrary<unknown> => {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, sub] of Object.entries(properties)) {
      if (!isSchema(sub) || (depth >= maxDepth && !required.has(name))) continue;
      const own = of(sub, depth + 1);
      const hint = hints[name];
      fields[name] = hint ? fc.oneof({ weight: 6, arbitrary: hint }, { weight: 1, arbitrary: own }) : own;
    }
    const record = fc.record(fields, { requiredKeys: [...required].filter((k) => k in fields) });
    const extra = schema.additionalProperties;
    if (!isSchema(extra) || depth >= maxDepth) return record;
    const keys = isSchema(schema.propertyNames) ? (of(schema.propertyNames, depth + 1) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 8 });
    const map = fc.dictionary(fc.oneof(hints.tenant ?? keys, keys) as fc.Arbitrary<string>, of(extra, depth + 1), { maxKeys: 2 });
    return fc.tuple(record, map).map(([r, m]) => ({ ...m, ...r }));
  };

  return of(root, 0);
}

/** Values no schema field of the API takes as they are: wrong types, edges and beyond, odd texts. */
export const BAD_VALUES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, -0.5, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, 8_640_000_000_000_000, -8_640_000_000_000_000,
  '', ' ', 'x', '0', '-1', 'a'.repeat(300), '\u0000', '\ud800', '<&>', '__proto__', 'P99999Y', 'PT-1S', '-P1D', 'P1D',
  '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00Z', '0000-01-01T00:00:00Z', '2030-02-31T00:00:00Z', '2030-01-01',
  [], [null], [1, 'x'], {}, { a: 1 }, { constructor: { prototype: 1 } },
];

type Mutation = 'replace' | 'delete' | 'extra';

/** Every path into a JSON value, the root (`[]`) first. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (isSchema(value)) for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function applyMutation(value: unknown, pick: number, kind: Mutation, bad: unknown, extraKey: string): unknown {
  const paths = pathsOf(value);
  const path = paths[pick % paths.length] ?? [];
  if (path.length === 0) {
    if (kind === 'replace') return bad;
    if (kind === 'extra' && isSchema(value)) return { ...value, [extraKey]: bad };
    return value;
  }
  let parent: unknown = value;
  for (const step of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[step];
  const last = path[path.length - 1]!;
  const holder = parent as Record<string | number, unknown>;
  if (kind === 'replace') holder[last] = bad;
  else if (kind === 'delete') {
    if (Array.isArray(holder)) holder.splice(Number(last), 1);
    else delete holder[last];
  } else {
    const target = holder[last];
    if (isSchema(target)) Object.defineProperty(target, extraKey, { value: bad, enumerable: true, writable: true, configurable: true });
    else holder[last] = bad;
  }
  return value;
}

/** Mutations of valid values: one node replaced by a bad value, removed, or given an unknown field. */
export function mutationsOf(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(valid, fc.nat(), fc.constantFrom<Mutation>('replace', 'replace', 'delete', 'extra'), fc.constantFrom(...BAD_VALUES), fc.constantFrom('extra', '__proto__', 'constructor', 'tenant'))
    .map(([value, pick, kind, bad, key]) => applyMutation(structuredClone(value), pick, kind, bad, key));
}

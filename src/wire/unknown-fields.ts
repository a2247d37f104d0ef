/** Unknown fields of strict objects: the fields the schema defines at a path, and "did you mean" for a misspelt key or value. */
import type * as z from 'zod';
import type { FieldPath } from './problems.js';

type Schema = z.core.$ZodType;

/** The schemas a value may be checked by, once wrappers (optional, default, lazy, pipe…) are looked through. */
function unwrap(schema: Schema): Schema[] {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  if ('innerType' in def) return unwrap(def.innerType);
  switch (def.type) {
    case 'pipe':
      return unwrap(def.in);
    case 'lazy':
      return unwrap(def.getter());
    case 'union':
      return def.options.flatMap(unwrap);
    case 'intersection':
      return [...unwrap(def.left), ...unwrap(def.right)];
    default:
      return [schema];
  }
}

/** The schemas of one step down: an object's field, an array's items, a record's values, a tuple's item. */
function child(schema: Schema, segment: string | number): Schema[] {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'object': {
      const field = Object.hasOwn(def.shape, segment) ? def.shape[segment] : undefined;
      return field ? [field] : [];
    }
    case 'array':
      return typeof segment === 'number' ? [def.element] : [];
    case 'record':
      return [def.valueType];
    case 'tuple': {
      const item = typeof segment === 'number' ? (def.items[segment] ?? def.rest) : undefined;
      return item ? [item] : [];
    }
    default:
      return [];
  }
}

/** The fields the object at `path` of a document defines (every alternative's, for a union); [] when unknown. */
export function definedFieldsAt(schema: Schema, path: FieldPath): string[] {
  let schemas = unwrap(schema);
  for (const segment of path) schemas = schemas.flatMap((s) => child(s, segment)).flatMap(unwrap);
  const fields = schemas.flatMap((s) => {
    const def = (s as z.core.$ZodTypes)._zod.def;
    return def.type === 'object' ? Object.keys(def.shape) : [];
  });
  return [...new Set(fields)];
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  // d[i][j]: the distance between a's first i characters and b's first j (row and column 0: i + j).
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      // A swap of two neighbours (a[-1] and b[-1] are undefined, so this needs i and j of at least 2).
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The field a misspelt key most likely meant: the closest (the first on a tie) within max(2, a third of the
 * key's length) edits, and fewer than its length (a hint must keep something of what was typed).
 */
export function closestField(key: string, fields: readonly string[]): string | undefined {
  const limit = Math.min(Math.max(2, Math.floor(key.length / 3)), key.length - 1);
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const field of fields) {
    // The distance is at least the difference in length: a long key costs no quadratic table.
    if (Math.abs(field.length - key.length) >= bestDistance) continue;
    const distance = editDistance(key, field);
    if (distance < bestDistance) {
      best = field;
      bestDistance = distance;
    }
  }
  return best;
}

/** `opertion is not a field of this object; did you mean operation?` */
export function notAllowedMessage(key: string, fields: readonly string[]): string {
  const hint = closestField(key, fields);
  return `${key} is not a field of this object${hint === undefined ? '' : `; did you mean ${hint}?`}`;
}

/** The allowed value a misspelt one most likely meant: equal but for case (`SALE`), else the closest. */
export function closestValue(given: string, allowed: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  return allowed.find((value) => value.toLowerCase() === lower) ?? closestField(given, allowed);
}

/** `; did you mean 'sale'?` for a string close to one of several allowed values (quoted as the message quotes them); else ''. */
export function meantValueHint(given: unknown, allowed: readonly string[], quote = "'"): string {
  if (typeof given !== 'string' || allowed.length < 2) return '';
  const meant = closestValue(given, allowed);
  return meant === undefined ? '' : `; did you mean ${quote}${meant}${quote}?`;
}

/** JSON text → value, with the limits every document shares: not empty, valid, and not nested too deep. */
import { WireError, schemaError } from './problems.js';

/** The deepest any JSON document may nest: far beyond any request of the API, far below a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of JSON text (brackets outside strings); stops counting past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

/** Refuses JSON nested deeper than MAX_JSON_DEPTH with the standard problem, before anything walks it. */
export function checkJsonDepth(text: string): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw schemaError(
      [{ errorName: 'fieldHasInvalidValue', message: `the body must not nest deeper than ${MAX_JSON_DEPTH} levels`, path: [] }],
      'The request body nests too deeply',
    );
  }
}

/** Parsed JSON text: empty → bodyIsEmpty, unparsable → bodyIsNotJson, too deep → bodyDoesNotMatchSchema. */
export function parseJsonText(text: string, what = 'The request body'): unknown {
  if (text.trim() === '') throw new WireError('bodyIsEmpty', `${what} must not be empty`);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new WireError('bodyIsNotJson', `${what} is not valid JSON`);
  }
  checkJsonDepth(text);
  return value;
}

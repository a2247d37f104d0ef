/** Problems with a document (a body, a file, a snapshot): structured field paths, JSONPaths only at the edge. */
import type { DomainCode } from '../domain/errors.js';

/** Field-level problem names (the spec's "field validation errors"). */
export type FieldErrorName =
  | 'fieldIsMissing'
  | 'fieldIsNull'
  | 'fieldIsEmpty'
  | 'fieldMustBeString'
  | 'fieldMustBeNumber'
  | 'fieldMustBeInteger'
  | 'fieldMustBeBoolean'
  | 'fieldMustBeObject'
  | 'fieldMustBeArray'
  | 'fieldHasInvalidValue'
  | 'fieldIsNotAllowed'
  | 'integerIsTooSmall'
  | 'integerIsTooLarge'
  | 'stringIsTooShort'
  | 'stringIsTooLong'
  | 'stringFailedRegexCheck'
  | 'panFailedLuhnCheck'
  | 'dateHasInvalidFormat';

/** A path into a document, kept structured until an edge renders it as a JSONPath. */
export type FieldPath = readonly (string | number)[];

export interface FieldProblem {
  errorName: FieldErrorName;
  message: string;
  /** Absent for URL problems; `[]` is the document itself. */
  path?: FieldPath;
}

export type WireCode = 'bodyIsEmpty' | 'bodyIsNotJson' | 'bodyDoesNotMatchSchema';

/** The most problems one answer (or one file's report) lists (decision 0021). */
export const MAX_PROBLEMS = 100;
/** What an answer's message adds when it lists only the first MAX_PROBLEMS problems. */
export const OMITTED_PROBLEMS = `only the first ${MAX_PROBLEMS} problems are listed; more were omitted`;

export function boundProblems<T>(problems: readonly T[]): { problems: readonly T[]; omitted: boolean } {
  return problems.length > MAX_PROBLEMS ? { problems: problems.slice(0, MAX_PROBLEMS), omitted: true } : { problems, omitted: false };
}

export const withOmittedNote = (message: string, omitted: boolean): string => (omitted ? `${message} (${OMITTED_PROBLEMS})` : message);

/** A document that cannot be read or does not match its schema: its offending fields, at most MAX_PROBLEMS (`omitted`: more were). */
export class WireError extends Error {
  readonly code: WireCode;
  readonly problems: readonly FieldProblem[];
  readonly omitted: boolean;

  constructor(code: WireCode, message: string, problems: readonly FieldProblem[] = []) {
    const bounded = boundProblems(problems);
    super(withOmittedNote(message, bounded.omitted));
    this.name = 'WireError';
    this.code = code;
    this.problems = bounded.problems;
    this.omitted = bounded.omitted;
  }
}

export function schemaError(problems: readonly FieldProblem[], message = 'The request body does not match the schema'): WireError {
  return new WireError('bodyDoesNotMatchSchema', message, problems);
}

/** A single field that breaks a rule the schema cannot know. */
export function fieldError(errorName: FieldErrorName, path: FieldPath, message: string): WireError {
  return schemaError([{ errorName, message, path }]);
}

/** Where the field a domain refusal is about sits in a create-token or sale body (a preloaded token's path is prefixed). */
const FIELDS_OF_DOMAIN_CODES: Partial<Record<DomainCode, FieldPath>> = {
  expiryNotInFuture: ['tokenExpiryDateTime'],
  tokenIdTaken: ['tokenId'],
  saleTokenNotLive: ['instruction', 'paymentInstrument', 'href'],
  refundCurrencyMismatch: ['value', 'currency'],
};

/** The field problem (fieldHasInvalidValue) a domain refusal amounts to, when it is about one field; undefined otherwise. */
export function fieldProblemOf(code: DomainCode, message: string): FieldProblem | undefined {
  const path = FIELDS_OF_DOMAIN_CODES[code];
  return path && { errorName: 'fieldHasInvalidValue', message, path };
}

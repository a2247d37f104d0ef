/** The one vocabulary of errors token-sim answers with. Every code has an HTTP status in http/errors.ts. */
export type ErrorCode =
  | 'accessDenied'
  | 'headerIsMissing'
  | 'headerHasInvalidValue'
  | 'bodyIsEmpty'
  | 'bodyIsNotJson'
  | 'bodyIsTooLarge'
  | 'bodyDoesNotMatchSchema'
  | 'urlContainsInvalidValue'
  | 'endpointNotFound'
  | 'methodNotAllowed'
  | 'resourceNotFound'
  | 'entityIsNotConfigured'
  | 'tooManyTokensForNamespace'
  | 'currencyIsNotSupported'
  | 'paymentInstrumentIsNotSupported'
  | 'underlyingPaymentInstrumentHasExpired'
  | 'internalErrorOccurred'
  | 'serviceUnavailable';

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

/** A path into the request body, kept structured until the HTTP edge renders it as a JSONPath. */
export type FieldPath = readonly (string | number)[];

export interface FieldProblem {
  errorName: FieldErrorName;
  message: string;
  /** Absent for URL problems; `[]` is the body itself. */
  path?: FieldPath;
}

export interface ErrorDetails {
  validationErrors?: readonly FieldProblem[];
  headerName?: string;
  /** Only for codes whose status depends on the case (headerHasInvalidValue: 400, 406 or 415). */
  status?: number;
}

export class VaultError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    // These are answers to clients, not bugs: skip the stack trace, which costs more than the answer.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'VaultError';
    this.code = code;
    this.details = details;
  }
}

/** A single body field that breaks a rule the schema cannot know (e.g. a date in the past). */
export function fieldError(errorName: FieldErrorName, path: FieldPath, message: string): VaultError {
  return new VaultError('bodyDoesNotMatchSchema', 'The request body does not match the schema', {
    validationErrors: [{ errorName, message, path }],
  });
}

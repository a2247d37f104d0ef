/** How every error is answered (decision 0012): one exhaustive table of codes, and one renderer of the standard body. */
import { DomainError, type DomainCode } from '../domain/errors.js';
import { maskCardNumbersIn } from '../wire/mask.js';
import { WireError, boundProblems, fieldProblemOf, withOmittedNote, type FieldProblem, type WireCode } from '../wire/problems.js';
import { toJsonPath } from '../wire/validation.js';
import { StoreUnavailableError } from '../store/redis/link.js';

interface Answer {
  status: number;
  errorName: string;
  headerName?: string;
}

/** A domain or wire code does not compile until it has a row here; an HTTP code is its row. */
const ANSWERS = {
  // domain
  tokenNotFound: { status: 404, errorName: 'resourceNotFound' },
  entityNotConfigured: { status: 400, errorName: 'entityIsNotConfigured' },
  namespaceFull: { status: 403, errorName: 'tooManyTokensForNamespace' },
  expiryNotInFuture: { status: 400, errorName: 'bodyDoesNotMatchSchema' },
  tokenIdTaken: { status: 400, errorName: 'bodyDoesNotMatchSchema' },
  currencyNotAccepted: { status: 400, errorName: 'currencyIsNotSupported' },
  networkNotAccepted: { status: 400, errorName: 'paymentInstrumentIsNotSupported' },
  saleTokenNotLive: { status: 400, errorName: 'bodyDoesNotMatchSchema' },
  storedCardExpired: { status: 400, errorName: 'underlyingPaymentInstrumentHasExpired' },
  issuerFailed: { status: 500, errorName: 'internalErrorOccurred' },
  paymentNotFound: { status: 404, errorName: 'resourceNotFound' },
  actionNotAllowed: { status: 409, errorName: 'actionIsNotAllowed' },
  refundCurrencyMismatch: { status: 400, errorName: 'bodyDoesNotMatchSchema' },
  referenceAlreadyUsed: { status: 400, errorName: 'transactionHasAlreadyBeenProcessed' },
  // wire
  bodyIsEmpty: { status: 400, errorName: 'bodyIsEmpty' },
  bodyIsNotJson: { status: 400, errorName: 'bodyIsNotJson' },
  bodyDoesNotMatchSchema: { status: 400, errorName: 'bodyDoesNotMatchSchema' },
  // http: what the edge itself refuses (credentials, headers, URLs, routes, the transport)
  accessDenied: { status: 401, errorName: 'accessDenied' },
  acceptMissing: { status: 400, errorName: 'headerIsMissing', headerName: 'Accept' },
  acceptNotAcceptable: { status: 406, errorName: 'headerHasInvalidValue', headerName: 'Accept' },
  contentTypeMissing: { status: 400, errorName: 'headerIsMissing', headerName: 'Content-Type' },
  contentTypeUnsupported: { status: 415, errorName: 'headerHasInvalidValue', headerName: 'Content-Type' },
  contentEncodingUnsupported: { status: 415, errorName: 'headerHasInvalidValue', headerName: 'Content-Encoding' },
  bodyTooLarge: { status: 413, errorName: 'bodyIsTooLarge' },
  urlInvalid: { status: 400, errorName: 'urlContainsInvalidValue' },
  refOfAnotherTenant: { status: 404, errorName: 'resourceNotFound' },
  // A tenant's Basic credentials on another tenant or an everyone-wide /_sim call (decision 0026).
  outsideTenantScope: { status: 403, errorName: 'operationIsNotAllowed' },
  // `masked=false` from a credential without `detokenize: true` (contract 3.3, decision 0031).
  detokenizeNotAllowed: { status: 403, errorName: 'merchantIsNotConfigured' },
  endpointNotFound: { status: 404, errorName: 'endpointNotFound' },
  methodNotAllowed: { status: 405, errorName: 'methodNotAllowed' },
  // The shared store (Redis) cannot be reached (contract 3.5, decision 0039): the client may retry.
  storeUnavailable: { status: 503, errorName: 'serviceUnavailable' },
  // A web page's rebound Host or cross-site write (decision 0042).
  hostNotAllowed: { status: 403, errorName: 'headerHasInvalidValue', headerName: 'Host' },
  originNotAllowed: { status: 403, errorName: 'headerHasInvalidValue', headerName: 'Origin' },
  crossSiteNotAllowed: { status: 403, errorName: 'headerHasInvalidValue', headerName: 'Sec-Fetch-Site' },
  // A webhook delivery the log does not show, or another tenant's (decision 0056).
  webhookNotFound: { status: 404, errorName: 'resourceNotFound' },
  // A paymentId of GET /paymentQueries/payments/{paymentId} that names no payment of the tenant (contract 4.4).
  paymentIdUnknown: { status: 404, errorName: 'resourceNotFound' },
  unexpected: { status: 500, errorName: 'internalErrorOccurred' },
} satisfies Record<DomainCode | WireCode, Answer> & Record<string, Answer>;

export type ErrorCode = keyof typeof ANSWERS;
export type HttpCode = Exclude<ErrorCode, DomainCode | WireCode>;

/** An answer the HTTP edge gives by itself; `headers` go with it (Allow, WWW-Authenticate). */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly problems: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(readonly code: HttpCode, message: string, options: { problems?: readonly FieldProblem[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.problems = options.problems ?? [];
    this.headers = options.headers ?? {};
  }
}

/** A query string's refusal: 400 urlContainsInvalidValue naming the call, one item per problem. */
export const queryRefusal = (where: string, problems: readonly FieldProblem[]): HttpError =>
  new HttpError('urlInvalid', `The query of ${where} is not valid`, { problems });

/** The named parameters of a query string, each given once and not empty, others ignored; none at all is `missing`. */
export function readQuery<N extends string>(text: string, names: readonly N[], where: string, missing: string): Partial<Record<N, string>> {
  const params = new URLSearchParams(text);
  const query: Partial<Record<N, string>> = {};
  const problems: FieldProblem[] = [];
  for (const name of names) {
    const values = params.getAll(name);
    if (values.length > 1) problems.push({ errorName: 'fieldHasInvalidValue', message: `${name} must be given once` });
    else if (values[0] === '') problems.push({ errorName: 'fieldIsEmpty', message: `${name} must not be empty` });
    else if (values[0] !== undefined) query[name] = values[0];
  }
  if (problems.length === 0 && Object.keys(query).length === 0) problems.push({ errorName: 'fieldIsMissing', message: missing });
  if (problems.length > 0) throw queryRefusal(where, problems);
  return query;
}

/** The standard error body of the API and /_sim. */
export interface ErrorBody {
  errorName: string;
  message: string;
  headerName?: string;
  validationErrors?: { errorName: string; message: string; jsonPath?: string }[];
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const RETRY_AFTER: Readonly<Record<string, string>> = Object.freeze({ 'Retry-After': '1' });

/** `expected` is false for a bug (anything but token-sim's own errors): it deserves a report, the client a 500. */
function render(code: ErrorCode, message: string, problems: readonly FieldProblem[], headers = NO_HEADERS, expected = true) {
  const answer: Answer = ANSWERS[code];
  // Messages may quote the request (an entity, a namespace): a card number pasted there is masked.
  // At most MAX_PROBLEMS items, whoever built the list (decision 0021).
  const bounded = boundProblems(problems);
  const body: ErrorBody = { errorName: answer.errorName, message: maskCardNumbersIn(withOmittedNote(message, bounded.omitted)) };
  if (answer.headerName !== undefined) body.headerName = answer.headerName;
  if (bounded.problems.length > 0) {
    body.validationErrors = bounded.problems.map((p) => ({
      errorName: p.errorName,
      message: maskCardNumbersIn(p.message),
      ...(p.path && { jsonPath: toJsonPath(p.path) }),
    }));
  }
  return { status: answer.status, headers, body, expected };
}

export type RenderedError = ReturnType<typeof render>;

/** Any thrown value as an answer: token-sim's own errors by the table, anything else as a 500. */
export function renderError(err: unknown): RenderedError {
  if (err instanceof HttpError) return render(err.code, err.message, err.problems, err.headers);
  if (err instanceof WireError) return render(err.code, err.message, err.problems);
  if (err instanceof StoreUnavailableError) {
    return render('storeUnavailable', 'The simulator cannot reach its store; retry shortly', [], RETRY_AFTER);
  }
  if (err instanceof DomainError) {
    const problem = fieldProblemOf(err.code, err.message);
    return render(err.code, problem ? 'The request body does not match the schema' : err.message, problem ? [problem] : []);
  }
  return render('unexpected', 'An unexpected error occurred in the simulator', [], NO_HEADERS, false);
}

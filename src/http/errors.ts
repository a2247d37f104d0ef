/** The one place that turns errors into a status and the standard error body. */
import type { ErrorRequestHandler, Response } from 'express';
import { VaultError, type ErrorCode } from '../domain/errors.js';
import { maskCardNumbersIn } from '../control/mask.js';
import { sendJson } from './send.js';
import { toJsonPath } from './validation.js';

const STATUS: Record<ErrorCode, number> = {
  accessDenied: 401,
  headerIsMissing: 400,
  headerHasInvalidValue: 400,
  bodyIsEmpty: 400,
  bodyIsNotJson: 400,
  bodyIsTooLarge: 413,
  bodyDoesNotMatchSchema: 400,
  urlContainsInvalidValue: 400,
  endpointNotFound: 404,
  methodNotAllowed: 405,
  resourceNotFound: 404,
  entityIsNotConfigured: 400,
  tooManyTokensForNamespace: 403,
  currencyIsNotSupported: 400,
  paymentInstrumentIsNotSupported: 400,
  underlyingPaymentInstrumentHasExpired: 400,
  internalErrorOccurred: 500,
  serviceUnavailable: 503,
};

export interface ErrorBody {
  errorName: ErrorCode;
  message: string;
  headerName?: string;
  validationErrors?: { errorName: string; message: string; jsonPath?: string }[];
}

function statusOf(error: VaultError): number {
  return error.details.status ?? STATUS[error.code];
}

export function errorBody(error: VaultError): ErrorBody {
  // Messages may quote the request (an entity, a namespace): a card number pasted there is masked.
  const body: ErrorBody = { errorName: error.code, message: maskCardNumbersIn(error.message) };
  const { headerName, validationErrors } = error.details;
  if (headerName !== undefined) body.headerName = headerName;
  if (validationErrors) {
    body.validationErrors = validationErrors.map((p) => ({
      errorName: p.errorName,
      message: maskCardNumbersIn(p.message),
      ...(p.path && { jsonPath: toJsonPath(p.path) }),
    }));
  }
  return body;
}

export function sendError(res: Response, error: VaultError): void {
  res.locals.errorName = error.code;
  sendJson(res, statusOf(error), errorBody(error));
}

/** What Express's own errors mean in the API's vocabulary (body errors are mapped in body.ts). */
function fromFrameworkError(err: unknown): VaultError | undefined {
  // The router could not percent-decode a path parameter.
  if (err instanceof URIError) {
    return new VaultError('urlContainsInvalidValue', 'The URL holds an invalid percent-encoding', {
      validationErrors: [{ errorName: 'fieldHasInvalidValue', message: 'The path is not valid percent-encoded UTF-8' }],
    });
  }
  return undefined;
}

export function createErrorHandler(reportUnexpected: (err: unknown) => void): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    let error: VaultError;
    if (err instanceof VaultError) error = err;
    else {
      const parsed = fromFrameworkError(err);
      if (parsed) error = parsed;
      else {
        reportUnexpected(err);
        error = new VaultError('internalErrorOccurred', 'An unexpected error occurred in the simulator');
      }
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, error);
  };
}

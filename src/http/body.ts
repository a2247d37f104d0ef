/** Request bodies: read raw (any Content-Type, at most 1 MiB) after the header checks, then JSON. */
import express, { type Request, type RequestHandler } from 'express';
import { VaultError } from '../domain/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

const readRaw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

/** What a failure to read the body means in the API's vocabulary. */
function bodyReadError(err: { type?: unknown }): VaultError {
  switch (err.type) {
    case 'entity.too.large':
      return new VaultError('bodyIsTooLarge', 'The request body must not exceed 1 MiB');
    case 'encoding.unsupported':
      return new VaultError('headerHasInvalidValue', 'The Content-Encoding is not supported', {
        headerName: 'Content-Encoding',
        status: 415,
      });
    default:
      // Aborted uploads, wrong lengths, a gzip or br body that does not decompress.
      return new VaultError('bodyIsNotJson', 'The request body could not be read or decoded');
  }
}

/** Reads the body into a Buffer whatever its type; over 1 MiB → 413 bodyIsTooLarge. */
export const readRawBody: RequestHandler = (req, res, next) => {
  readRaw(req, res, (err?: unknown) => {
    next(err === undefined ? undefined : bodyReadError(typeof err === 'object' && err !== null ? err : {}));
  });
};

function rawText(req: Request): string {
  const body: unknown = req.body;
  return Buffer.isBuffer(body) ? body.toString('utf8') : '';
}

/** True when the request carried no body, or only white space. */
export function isBodyEmpty(req: Request): boolean {
  return rawText(req).trim() === '';
}

/** The parsed JSON body: empty → 400 bodyIsEmpty, unparsable → 400 bodyIsNotJson. */
export function jsonBody(req: Request): unknown {
  const text = rawText(req);
  if (text.trim() === '') throw new VaultError('bodyIsEmpty', 'The request body must not be empty');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new VaultError('bodyIsNotJson', 'The request body is not valid JSON');
  }
}

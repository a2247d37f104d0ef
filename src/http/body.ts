/** Request bodies: read raw (any Content-Type, at most 1 MiB) after the header checks, then JSON. */
import express, { type Request } from 'express';
import { VaultError } from '../domain/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body into a Buffer whatever its type; over 1 MiB → 413 bodyIsTooLarge. */
export const readRawBody = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

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

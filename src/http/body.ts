/**
 * Request bodies: read raw (any Content-Type, at most 1 MiB) after the header checks, then JSON. Plain
 * bodies are read directly from the request stream; compressed ones go through body-parser, which
 * inflates gzip, deflate and br.
 */
import express, { type Request, type RequestHandler } from 'express';
import { VaultError } from '../domain/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

const inflateRaw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
const bodies = new WeakMap<Request, Buffer>();

const tooLarge = (): VaultError => new VaultError('bodyIsTooLarge', 'The request body must not exceed 1 MiB');
const unreadable = (): VaultError => new VaultError('bodyIsNotJson', 'The request body could not be read or decoded');

/** What body-parser's failures mean in the API's vocabulary. */
function inflateError(err: { type?: unknown }): VaultError {
  switch (err.type) {
    case 'entity.too.large':
      return tooLarge();
    case 'encoding.unsupported':
      return new VaultError('headerHasInvalidValue', 'The Content-Encoding is not supported', {
        headerName: 'Content-Encoding',
        status: 415,
      });
    default:
      // Aborted uploads, wrong lengths, a gzip or br body that does not decompress.
      return unreadable();
  }
}

/** Reads the body into a Buffer whatever its type; over 1 MiB → 413 bodyIsTooLarge. */
export const readRawBody: RequestHandler = (req, res, next) => {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    inflateRaw(req, res, (err?: unknown) => {
      if (err !== undefined) next(inflateError(typeof err === 'object' && err !== null ? err : {}));
      else {
        const body: unknown = req.body;
        if (Buffer.isBuffer(body)) bodies.set(req, body);
        next();
      }
    });
    return;
  }
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    next(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  req.on('data', (chunk: Buffer) => {
    if (failed) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      failed = true;
      next(tooLarge());
      return;
    }
    chunks.push(chunk);
  });
  req.once('end', () => {
    if (failed) return;
    bodies.set(req, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    next();
  });
  req.once('error', () => {
    if (failed) return;
    failed = true;
    next(unreadable());
  });
};

/** The raw body read by readRawBody (undefined when none was read). */
export function rawBodyOf(req: Request): Buffer | undefined {
  return bodies.get(req);
}

/** The deepest any JSON body may nest: far beyond any request of the API, far below a stack overflow. */
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

/** Refuses JSON nested deeper than MAX_JSON_DEPTH with the standard body, before anything walks it. */
export function checkJsonDepth(text: string): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new VaultError('bodyDoesNotMatchSchema', 'The request body nests too deeply', {
      validationErrors: [{ errorName: 'fieldHasInvalidValue', message: `the body must not nest deeper than ${MAX_JSON_DEPTH} levels`, path: [] }],
    });
  }
}

/** The parsed JSON body: empty → 400 bodyIsEmpty, unparsable → 400 bodyIsNotJson, too deep → 400. */
export function jsonBody(req: Request): unknown {
  const text = rawBodyOf(req)?.toString('utf8') ?? '';
  if (text.trim() === '') throw new VaultError('bodyIsEmpty', 'The request body must not be empty');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new VaultError('bodyIsNotJson', 'The request body is not valid JSON');
  }
  checkJsonDepth(text);
  return value;
}

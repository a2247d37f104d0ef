/** Request bodies from the node:http stream: at most 1 MiB after decompression (gzip, deflate, br: node:zlib). */
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { WireError } from '../wire/problems.js';
import { HttpError } from './errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** 1 MiB, 256 MiB, 1.5 KiB… */
function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit] ?? 'bytes'}`;
}

const tooLarge = (limit: number): HttpError => new HttpError('bodyTooLarge', `The request body must not exceed ${formatBytes(limit)}`);
/** Aborted uploads, wrong lengths, a gzip or br body that does not decompress. */
const unreadable = (): WireError => new WireError('bodyIsNotJson', 'The request body could not be read or decoded');

const DECODERS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

function collect(stream: Readable, limit: number, onTooLarge: () => void): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: () => Error): void => {
      if (done) return;
      done = true;
      reject(err());
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        fail(() => tooLarge(limit));
        onTooLarge();
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    // 'close' follows 'end' too: the error is only built when the body really was cut short.
    stream.once('error', () => fail(unreadable));
    stream.once('close', () => fail(unreadable));
  });
}

/** Reads the body whatever its media type: over `limit` after decompression → 413; an unknown Content-Encoding → 415. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== 'identity') {
    const decoder = DECODERS.get(encoding)?.();
    if (!decoder) {
      return Promise.reject(new HttpError('contentEncodingUnsupported', 'The Content-Encoding is not supported'));
    }
    req.once('error', () => decoder.destroy(unreadable()));
    req.pipe(decoder);
    return collect(decoder, limit, () => req.unpipe(decoder));
  }
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge(limit));
  return collect(req, limit, () => undefined);
}

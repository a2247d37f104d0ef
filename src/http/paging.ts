/**
 * Paged /_sim reads (contract 3.6): `limit` (default 1000, at most 10000) and `cursor` in, `next` out (the
 * cursor of the following page, or null). A large read is many small answers, so none stalls the API.
 */
import type { TokenPosition } from '../control/token-pages.js';
import { queryRefusal, type HttpError } from './errors.js';

export const PAGE_DEFAULT = 1000;
export const PAGE_MAX = 10_000;

/** A query parameter's refusal: `urlContainsInvalidValue`, naming the call. */
export const refuse = (where: string, message: string): HttpError => queryRefusal(where, [{ errorName: 'fieldHasInvalidValue', message }]);

/** A whole number from 0 to `max` (at most six digits), given once; absent → `fallback`. `what` opens the refusal. */
export function readWhole(value: unknown, where: string, what: string, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^[0-9]{1,6}$/.test(value) || Number(value) > max) throw refuse(where, `${what} from 0 to ${max}, given once`);
  return Number(value);
}

/** `limit`: absent → the default; otherwise a whole number from 0 to PAGE_MAX, given once. */
export const readLimit = (value: unknown, where: string): number => readWhole(value, where, 'limit must be a whole number', PAGE_MAX, PAGE_DEFAULT);

/** A journal cursor: the `seq` of the last entry of the previous page. */
export function readJournalCursor(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[0-9]{1,15}$/.test(value)) throw refuse(where, 'cursor must be the next value of an earlier answer, given once');
  return Number(value);
}

/** A token cursor: the position of the last token of the previous page, as opaque URL-safe text. */
export function tokenCursor(p: TokenPosition): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.tenant, p.tokenId]), 'utf8').toString('base64url');
}

export function readTokenCursor(value: unknown, where: string): TokenPosition | undefined {
  if (value === undefined) return undefined;
  const bad = refuse(where, 'cursor must be the next value of an earlier answer, given once');
  if (typeof value !== 'string' || value.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(value)) throw bad;
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw bad;
  }
  if (!Array.isArray(data) || data.length !== 3 || !Number.isFinite(data[0]) || typeof data[1] !== 'string' || typeof data[2] !== 'string') throw bad;
  return { createdAt: data[0] as number, tenant: data[1], tokenId: data[2] };
}

/** The queries of the /_sim reads (URL or library), every problem in one refusal: paging (contract 3.6), journal, webhooks. */
import { JOURNAL_FILTER_KEYS, cleanJournalFilter, journalFilterProblems, type JournalFilter } from '../control/journal.js';
import type { TokenPosition } from '../control/token-pages.js';
import { WEBHOOK_STATES, type WebhookFilter, type WebhookState } from '../infra/webhooks.js';
import type { FieldProblem } from '../wire/problems.js';
import { closestField, meantValueHint } from '../wire/unknown-fields.js';
import { queryRefusal, type HttpError } from './errors.js';

export const PAGE_DEFAULT = 1000;
export const PAGE_MAX = 10_000;

export const refuse = (where: string, message: string): HttpError => queryRefusal(where, [{ errorName: 'fieldHasInvalidValue', message }]);

/** A whole number from 0 to `max` (at most six digits), given once; absent → `fallback`. `what` opens the refusal. */
function readWhole(value: unknown, where: string, what: string, max: number, fallback: number): number {
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

const FORMATS = ['json', 'har'] as const;
export type JournalFormat = (typeof FORMATS)[number];
const INTEGER_KEYS = new Set<string>(['status', 'since', 'limit']);
const INTEGER = /^-?[0-9]+$/;

/** Parameters other than `known`, each with a "did you mean" hint when a known one is close. */
function unknownParams(query: Readonly<Record<string, unknown>>, known: readonly string[], where: string): FieldProblem[] {
  return Object.keys(query)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const hint = closestField(key, known);
      return { errorName: 'fieldIsNotAllowed', message: `${key} is not a parameter of ${where}${hint === undefined ? '' : `; did you mean ${hint}?`}` };
    });
}

/** The journal's filter and format (`tenant` is read elsewhere); each parameter given once, not empty, known and well formed. */
export function parseJournalQuery(query: Readonly<Record<string, unknown>>, where: string): { filter: JournalFilter; format: JournalFormat } {
  const problems = unknownParams(query, ['tenant', 'format', ...JOURNAL_FILTER_KEYS], where);
  const given: Record<string, unknown> = {};
  let format: JournalFormat = 'json';
  for (const key of ['format', ...JOURNAL_FILTER_KEYS]) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      problems.push({ errorName: 'fieldHasInvalidValue', message: `${key} must be given once` });
      continue;
    }
    if (key === 'format') {
      if ((FORMATS as readonly string[]).includes(value)) format = value as JournalFormat;
      else problems.push({ errorName: 'fieldHasInvalidValue', message: `format must be one of ${FORMATS.join(', ')}${meantValueHint(value, FORMATS, '')}` });
      continue;
    }
    // Integers as numbers (a huge one becomes an unsafe number, refused as too large); anything else stays text.
    given[key] = INTEGER_KEYS.has(key) && INTEGER.test(value) ? Number(value) : value;
  }
  // The filter's own rules, worded for its keys (which are the parameters' names): URL problems carry no JSONPath.
  problems.push(...journalFilterProblems(given).map(({ errorName, message }) => ({ errorName, message })));
  if (problems.length > 0) throw queryRefusal(where, problems);
  return { filter: cleanJournalFilter(given), format };
}

export function checkQueryParams(query: Readonly<Record<string, unknown>>, known: readonly string[], where: string): void {
  const problems = unknownParams(query, known, where);
  if (problems.length > 0) throw queryRefusal(where, problems);
}

const STATES: readonly string[] = WEBHOOK_STATES;

/** How long a flush waits unless told: longer than one delivery's worst case (5 attempts of 5 s, 1.5 s of backoff). */
const FLUSH_DEFAULT_MS = 30_000;
/** The longest wait a flush takes: under the drain timeout's default (65 s), so a stop is never held by it. */
const FLUSH_MAX_MS = 60_000;

/** `state`, `limit` (default 1000, at most 10000) and `cursor` (the `next` of an earlier page); `tenant` is read by the caller. */
export function readWebhookQuery(query: Record<string, unknown>, where: string): WebhookFilter & { limit: number } {
  checkQueryParams(query, ['tenant', 'state', 'limit', 'cursor'], where);
  const { state, limit, cursor } = query;
  if (state !== undefined && (typeof state !== 'string' || !STATES.includes(state))) {
    throw refuse(where, `state must be ${STATES.slice(0, -1).join(', ')} or ${STATES.at(-1) ?? ''}, given once`);
  }
  const since = readJournalCursor(cursor, where);
  return {
    ...(state !== undefined && { state: state as WebhookState }),
    ...(since !== undefined && { since }),
    limit: readLimit(limit, where),
  };
}

/** `timeout`: milliseconds a flush waits at most, a whole number from 0 to FLUSH_MAX_MS (default FLUSH_DEFAULT_MS). */
export function readFlushTimeout(query: Record<string, unknown>, where: string): number {
  checkQueryParams(query, ['tenant', 'timeout'], where);
  return readWhole(query.timeout, where, 'timeout must be a whole number of milliseconds', FLUSH_MAX_MS, FLUSH_DEFAULT_MS);
}

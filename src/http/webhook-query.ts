/**
 * The query of `GET /_sim/webhooks` and `POST /_sim/webhooks/flush` (decision 0030), read alike from the URL
 * and from library arguments: a bad value is the same `urlContainsInvalidValue` refusal everywhere.
 */
import { WEBHOOK_STATES, type WebhookFilter, type WebhookState } from '../infra/webhooks.js';
import { checkQueryParams } from './journal-query.js';
import { readJournalCursor, readLimit, readWhole, refuse } from './paging.js';

const STATES: readonly string[] = WEBHOOK_STATES;

/** How long a flush waits unless told: longer than one delivery's worst case (5 attempts of 5 s, 1.5 s of backoff). */
export const FLUSH_DEFAULT_MS = 30_000;
/** The longest wait a flush takes: under the drain timeout's default (65 s), so a stop is never held by it. */
export const FLUSH_MAX_MS = 60_000;

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

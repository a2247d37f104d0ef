/**
 * Clock calls as both doors take them — a /_sim body or a library call — read by one set of rules, so the
 * HTTP and library answers to a bad duration or date are the same error.
 */
import { advanceMs } from '../domain/duration.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { fieldError } from '../wire/problems.js';
import { clockAdvanceBody, clockSetBody } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';

/** `{by}` → milliseconds forward from `nowMs`; bodyDoesNotMatchSchema at `$.by` when it is not a non-negative duration. */
export function readAdvance(body: unknown, nowMs: number): number {
  const { by } = parseBody(clockAdvanceBody, body);
  const ms = advanceMs(by, nowMs);
  if (ms === undefined) {
    throw fieldError('fieldHasInvalidValue', ['by'], 'by must be a non-negative ISO 8601 duration (P8D) or number of milliseconds');
  }
  return ms;
}

/** `{now, frozen?}` → the instant and the frozen flag; bodyDoesNotMatchSchema at `$.now` for a bad date. */
export function readSetClock(body: unknown): { epochMs: number; frozen: boolean | undefined } {
  const parsed = parseBody(clockSetBody, body);
  return { epochMs: parseInstant(parsed.now) ?? Number.NaN, frozen: parsed.frozen };
}

/** A library argument as the /_sim body would carry it: numbers and Dates become ISO strings. */
export function instantText(now: string | number | Date): unknown {
  if (typeof now === 'string') return now;
  const ms = now instanceof Date ? now.getTime() : now;
  return Number.isFinite(ms) ? formatInstant(ms) : String(now);
}

/**
 * Clock calls as both doors take them — a /_sim body or a library call — read by one set of rules, so the
 * HTTP and library answers to a bad duration or date are the same error.
 */
import { advanceMs } from '../domain/duration.js';
import { LATEST_INSTANT, isInRange } from '../domain/time-range.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { fieldError } from '../wire/problems.js';
import { clockAdvanceBody, clockSetBody } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';

const RANGE = 'the clock runs from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/** now outside the clock's range: bodyDoesNotMatchSchema, fieldHasInvalidValue at `$.now`. */
const outOfRange = () => fieldError('fieldHasInvalidValue', ['now'], `now must be inside the clock's range: ${RANGE}`);

/**
 * `{by}` → milliseconds forward from `nowMs`; bodyDoesNotMatchSchema at `$.by` when it is not a non-negative
 * duration, or when it would move the clock past the end of its range.
 */
export function readAdvance(body: unknown, nowMs: number): number {
  const { by } = parseBody(clockAdvanceBody, body);
  const ms = advanceMs(by, nowMs);
  if (ms === undefined) {
    throw fieldError('fieldHasInvalidValue', ['by'], 'by must be a non-negative ISO 8601 duration (P8D) or number of milliseconds');
  }
  if (ms > LATEST_INSTANT - nowMs) {
    throw fieldError('fieldHasInvalidValue', ['by'], `by would move the clock past its range: ${RANGE}`);
  }
  return ms;
}

/**
 * `{now, frozen?}` → the instant and the frozen flag; bodyDoesNotMatchSchema at `$.now` for a bad date or one
 * outside the clock's range.
 */
export function readSetClock(body: unknown): { epochMs: number; frozen: boolean | undefined } {
  const parsed = parseBody(clockSetBody, body);
  const epochMs = parseInstant(parsed.now) ?? Number.NaN;
  if (!isInRange(epochMs)) throw outOfRange();
  return { epochMs, frozen: parsed.frozen };
}

/**
 * A library argument as the /_sim body would carry it: numbers and Dates become ISO strings. A number or
 * Date outside the clock's range throws the refusal the body would get (it has no four-digit-year text).
 */
export function instantText(now: string | number | Date): unknown {
  if (typeof now === 'string') return now;
  const ms = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms)) return String(now);
  if (!isInRange(ms)) throw outOfRange();
  return formatInstant(ms);
}

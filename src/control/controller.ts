/**
 * The control plane behind both /_sim and the library: clocks (shared or per tenant), reset, tokens,
 * the journal, and state snapshots. Without a tenant, a call acts on every tenant. Clock calls take the body
 * as both doors give it (a /_sim body, or a library call as that body), read by one set of rules, so the
 * HTTP and library answers to a bad duration or date are the same error.
 */
import { advanceMs } from '../domain/duration.js';
import { LATEST_INSTANT, isInRange } from '../domain/time-range.js';
import type { Token } from '../domain/token.js';
import type { TenantClocks } from '../infra/clock.js';
import type { Scenario } from '../scenarios/schema.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { fieldError, type FieldPath } from '../wire/problems.js';
import { clockAdvanceBody, clockSetBody } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';
import type { ControllerDeps } from './controller-deps.js';
import type { JournalEntry, JournalFilter } from './journal.js';
import { toEntry } from './journal-entry.js';
import { tokenPage, type TokenPosition } from './token-pages.js';
import type { ClockState, StateSnapshot } from './state.js';
import { importState, importTenantState, liveTokens, stateParts, sweep, view, type StateParts } from './snapshots.js';

const RANGE = 'the clock runs from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/** now outside the clock's range: bodyDoesNotMatchSchema, fieldHasInvalidValue at `$.now`. */
const outOfRange = () => fieldError('fieldHasInvalidValue', ['now'], `now must be inside the clock's range: ${RANGE}`);

/**
 * `{by}` → milliseconds forward from `nowMs`; bodyDoesNotMatchSchema at `$.by` when it is not a non-negative
 * duration, or when it would move the clock past the end of its range.
 */
function readAdvance(body: unknown, nowMs: number): number {
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
function readSetClock(body: unknown): { epochMs: number; frozen: boolean | undefined } {
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

/**
 * The clock a call moves: the tenant's own (forked on first use), or the shared one — which every tenant
 * without a fork follows. A fork moves only by calls naming its tenant.
 */
const target = (clocks: TenantClocks, tenant: string | undefined) => (tenant === undefined ? clocks.shared : clocks.fork(tenant));

/** The control plane of one simulator; without a tenant, a call acts on every tenant. */
export type Controller = ReturnType<typeof createController>;

export function createController(deps: ControllerDeps) {
  const { journal } = deps;
  return {
    clock: (tenant?: string): ClockState => view(deps.clocks.of(tenant)),
    /**
     * `{by}` read against the clock it moves; the clock's expired tokens are swept after the move, and its due
     * payment events caught up (decision 0023).
     */
    advanceClock(body: unknown, tenant?: string): ClockState {
      const ms = readAdvance(body, deps.clocks.of(tenant).now());
      target(deps.clocks, tenant).advance(ms);
      sweep(deps, tenant);
      return view(deps.clocks.of(tenant));
    },
    /** `{now, frozen?}`; swept before and after the move: setting a clock back never brings an expired token back. */
    setClock(body: unknown, tenant?: string): ClockState {
      const { epochMs, frozen } = readSetClock(body);
      sweep(deps, tenant);
      target(deps.clocks, tenant).set(epochMs, frozen);
      sweep(deps, tenant);
      return view(deps.clocks.of(tenant));
    },
    reset(tenant?: string): void {
      deps.store.clear(tenant);
      journal.clear(tenant);
      deps.engine.resetCounters(tenant);
      deps.clearWebhooks?.(tenant);
      deps.payments?.store.clear(tenant);
      deps.preload(tenant);
      deps.afterReset?.(tenant);
    },
    /** The global scenario set, or one tenant's own set. */
    scenarios: (tenant?: string): readonly Scenario[] => deps.scenarios.list(tenant),
    /** Replaces the global scenario set, or one tenant's own set (an empty list clears it); `paths` locate them in the request body. */
    loadScenarios: (scenarios: readonly Scenario[], paths?: readonly FieldPath[], tenant?: string): void => deps.scenarios.load(scenarios, paths, tenant),
    /** Live tokens, oldest first. */
    tokens: (tenant?: string): Token[] => tokenPage(liveTokens(deps, tenant), undefined, Number.MAX_SAFE_INTEGER - 1).tokens,
    /** A page of live tokens (one tenant's, or every tenant's) after a position, in `tokens()`' order. */
    tokenPage: (tenant: string | undefined, after: TokenPosition | undefined, limit: number) => tokenPage(liveTokens(deps, tenant), after, limit),
    /**
     * The journal (one tenant's, or every tenant's): the oldest `filter.limit` entries that pass the filter
     * (all without a limit), newest last, card data masked; `count` is how many pass it. The filter is
     * trusted: check it first (checkJournalFilter) when it comes from outside.
     */
    requests(tenant?: string, filter?: JournalFilter): { requests: JournalEntry[]; count: number } {
      const { selected, count } = journal.select(tenant, filter);
      return { requests: selected.map(toEntry), count };
    },
    clearRequests: (tenant?: string): void => journal.clear(tenant),
    /** A snapshot (everything, or one tenant's part: decision 0026) in parts, to be written a slice at a time. */
    exportStateParts: (tenant?: string): StateParts => stateParts(deps, tenant),
    exportState(): StateSnapshot {
      const { head, tokens, toState } = stateParts(deps);
      return { ...head, tokens: tokens.map(toState) };
    },
    /** Replaces the whole state, or with a tenant that tenant's part only; changes nothing and throws when the snapshot is not valid. */
    importState: (data: unknown, tenant?: string): void => (tenant === undefined ? importState(deps, data) : importTenantState(deps, data, tenant)),
    /** Deletes every tenant's expired tokens, each by its tenant's clock; returns how many (a periodic sweep). */
    sweepExpired: (): number => sweep(deps, undefined, true),
  };
}

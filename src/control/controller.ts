/**
 * The control plane behind both /_sim and the library. Clock calls take the /_sim body (the library passes its
 * arguments as that body), so a bad duration or date is the same error by both doors.
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
import type { JournalEntry, JournalFilter } from './journal.js';
import { toEntry } from './journal-entry.js';
import { tokenPage, type TokenPosition } from './token-pages.js';
import type { ClockState, StateSnapshot } from './state.js';
import { importState, liveTokens, stateParts, sweep, view, type ControllerDeps, type StateParts } from './snapshots.js';

const RANGE = 'the clock runs from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

const outOfRange = () => fieldError('fieldHasInvalidValue', ['now'], `now must be inside the clock's range: ${RANGE}`);

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

function readSetClock(body: unknown): { epochMs: number; frozen: boolean | undefined } {
  const parsed = parseBody(clockSetBody, body);
  const epochMs = parseInstant(parsed.now) ?? Number.NaN;
  if (!isInRange(epochMs)) throw outOfRange();
  return { epochMs, frozen: parsed.frozen };
}

/** A library argument as the /_sim body carries it (ISO text); one outside the range, which has no such text, is refused as the body would be. */
export function instantText(now: string | number | Date): unknown {
  if (typeof now === 'string') return now;
  const ms = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms)) return String(now);
  if (!isInRange(ms)) throw outOfRange();
  return formatInstant(ms);
}

/** The clock a call moves: the tenant's own (forked on first use), or the shared one that unforked tenants follow. */
const target = (clocks: TenantClocks, tenant: string | undefined) => (tenant === undefined ? clocks.shared : clocks.fork(tenant));

/** The control plane of one simulator; without a tenant, a call acts on every tenant. */
export type Controller = ReturnType<typeof createController>;

export function createController(deps: ControllerDeps) {
  const { journal } = deps;
  return {
    clock: (tenant?: string): ClockState => view(deps.clocks.of(tenant)),
    /** Then the clock's expired tokens are swept and its due payment events caught up (decision 0023). */
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
      deps.clearWebhooks(tenant);
      deps.payments.store.clear(tenant);
      deps.preload(tenant);
      deps.afterReset(tenant);
    },
    scenarios: (tenant?: string): readonly Scenario[] => deps.scenarios.list(tenant),
    /** Replaces the global scenario set, or one tenant's own set (an empty list clears it); `paths` locate them in the request body. */
    loadScenarios: (scenarios: readonly Scenario[], paths?: readonly FieldPath[], tenant?: string): void => deps.scenarios.load(scenarios, paths, tenant),
    tokens: (tenant?: string): Token[] => tokenPage(liveTokens(deps, tenant), undefined, Number.MAX_SAFE_INTEGER - 1).tokens,
    /** A page of live tokens (one tenant's, or every tenant's) after a position, in `tokens()`' order. */
    tokenPage: (tenant: string | undefined, after: TokenPosition | undefined, limit: number) => tokenPage(liveTokens(deps, tenant), after, limit),
    /** The oldest `filter.limit` entries that pass the (trusted: cleanJournalFilter) filter, masked; `count` is how many pass it. */
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
    /** The whole state, or a tenant's part only; nothing changes when it is refused. */
    importState: (data: unknown, tenant?: string): void => importState(deps, data, tenant),
    /** Deletes every tenant's expired tokens, each by its tenant's clock; returns how many (a periodic sweep). */
    sweepExpired: (): number => sweep(deps, undefined, true),
  };
}

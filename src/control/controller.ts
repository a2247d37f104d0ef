/**
 * The control plane behind both /_sim and the library: clocks (shared or per tenant), reset, tokens,
 * the journal, and state snapshots. Without a tenant, a call acts on every tenant.
 */
import type { FieldPath } from '../wire/problems.js';
import type { Token } from '../domain/token.js';
import type { TenantClocks, VirtualClock } from '../infra/clock.js';
import type { Scenario } from '../scenarios/schema.js';
import type { JournalEntry, JournalFilter } from './journal.js';
import { toEntry } from './journal-entry.js';
import { tokenPage, type TokenPosition } from './token-pages.js';
import type { ClockState, StateSnapshot } from './state.js';
import { catchUpPayments, importState, importTenantState, liveTokens, stateParts, sweepAll, view, type StateParts } from './snapshots.js';

import type { ControllerDeps } from './controller-deps.js';

/**
 * The clock a call moves: the tenant's own (forked on first use), or the shared one — which every tenant
 * without a fork follows. A fork moves only by calls naming its tenant.
 */
const target = (clocks: TenantClocks, tenant: string | undefined): VirtualClock => (tenant === undefined ? clocks.shared : clocks.fork(tenant));

/**
 * Deletes the tokens that have expired by the clock a call moves (the tenant's own, or the shared one for
 * every tenant following it), before and after the move: setting a clock back never brings an expired token
 * back, and moving it on frees what expires (decision 0023). The store's expiry heap makes it cheap.
 */
function sweepExpired(deps: ControllerDeps, tenant: string | undefined): void {
  const { clocks, store } = deps;
  const forked = clocks.forks();
  for (const t of tenant === undefined ? store.tenants().filter((t) => !forked.has(t)) : [tenant]) store.sweepExpired(t, clocks.now(t));
  catchUpPayments(deps, tenant);
}

/** The control plane of one simulator; without a tenant, a call acts on every tenant. */
export type Controller = ReturnType<typeof createController>;

export function createController(deps: ControllerDeps) {
  const { journal } = deps;
  return {
    clock: (tenant?: string): ClockState => view(deps.clocks.of(tenant)),
    /** `ms` as readAdvance read it: non-negative, and within the clock's range. */
    advanceClock(ms: number, tenant?: string): ClockState {
      target(deps.clocks, tenant).advance(ms);
      sweepExpired(deps, tenant);
      return view(deps.clocks.of(tenant));
    },
    setClock(epochMs: number, frozen: boolean | undefined, tenant?: string): ClockState {
      sweepExpired(deps, tenant);
      target(deps.clocks, tenant).set(epochMs, frozen);
      sweepExpired(deps, tenant);
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
    sweepExpired: (): number => sweepAll(deps),
  };
}

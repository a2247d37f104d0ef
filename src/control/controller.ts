/**
 * The control plane behind both /_sim and the library: clock calls take the /_sim body (the library passes its
 * arguments as that body), so both doors refuse alike. State snapshots: decisions 0026, 0027.
 */
import { LATEST_INSTANT, advanceMs, isInRange } from '../domain/duration.js';
import type { PaymentStore, Store } from '../domain/ports.js';
import type { Token } from '../domain/token.js';
import type { TenantClocks, VirtualClock } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioCounters, ScenarioEngine } from '../scenarios/engine.js';
import type { Scenario } from '../scenarios/schema.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { fieldError, type FieldPath, type FieldProblem } from '../wire/problems.js';
import { clockAdvanceBody, clockSetBody } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';
import type { Journal, JournalEntry, JournalFilter } from './journal.js';
import { toEntry } from './journal-entry.js';
import { instantMs, paymentFromState, paymentToState } from './payment-state.js';
import type { ClockState, StateSnapshot } from './snapshot-types.js';
import { parseState, refuseState, sealScenarioSets, stateText, tokenToState, type StateParts, type StateTextOptions } from './state.js';
import { tokenPage, type TokenPosition } from './token-pages.js';

interface ControllerDeps {
  clocks: TenantClocks;
  store: Store;
  journal: Journal;
  ids: IdSource;
  /** Seals card numbers in snapshots. */
  siv: Siv;
  /** Puts configured tokens (fixtures, scenarios) back after a reset. */
  preload(tenant?: string): void;
  engine: ScenarioEngine;
  /** The active sets, with the profile in force: imported tokens without an extension of their own take its extension. */
  scenarios: ActiveScenarios;
  isTenant(name: string): boolean;
  /** Drops the webhook queue and delivery log (of one tenant, or all) at a reset (decision 0030). */
  clearWebhooks(tenant?: string): void;
  /** Payments: their store, and the catch-up of a tenant's events due by its clock. */
  payments: { store: PaymentStore; catchUp(tenant: string): number };
  /** Hands on the tenant's webhook deliveries a rule delayed until its clock's now (decision 0056), after a catch-up. */
  releaseWebhooks(tenant: string): void;
  /** Told after each reset (of one tenant, or all, `undefined`): a whole reset clears health's store report (decision 0041). */
  afterReset(tenant: string | undefined): void;
}

const view = (clock: VirtualClock): ClockState => ({ now: formatInstant(clock.now()), frozen: clock.frozen });

/** The live tokens of one tenant, or of every tenant, each by its tenant's clock. */
function* liveTokens(deps: ControllerDeps, tenant: string | undefined): Generator<Token> {
  for (const t of tenant === undefined ? deps.store.tenants() : [tenant]) {
    const now = deps.clocks.now(t);
    for (const token of deps.store.list(t)) if (now < token.expiresAt) yield token;
  }
}

/**
 * Deletes expired tokens and catches up due payment events, each tenant by its own clock (decision 0023): one
 * tenant's; without one, every tenant's that follows the shared clock, or with `forksToo` every tenant's (the
 * periodic sweep). Returns how many tokens were deleted.
 */
function sweep(deps: ControllerDeps, tenant: string | undefined, forksToo = false): number {
  const forked = forksToo ? undefined : deps.clocks.forks();
  const which = (tenants: readonly string[]): readonly string[] => (tenant !== undefined ? [tenant] : tenants.filter((t) => !forked?.has(t)));
  let removed = 0;
  for (const t of which(deps.store.tenants())) removed += deps.store.sweepExpired(t, deps.clocks.now(t));
  for (const t of which(deps.payments.store.tenants())) {
    deps.payments.catchUp(t);
    deps.releaseWebhooks(t);
  }
  return removed;
}

/** The tenant of an id counter (`<kind>:<tenant>`; kinds hold no colon). */
const tenantOfCounter = (key: string): string => key.slice(key.indexOf(':') + 1);

const only = <V>(record: Record<string, V>, keep: (key: string) => boolean): Record<string, V> =>
  Object.fromEntries(Object.entries(record).filter(([key]) => keep(key)));

const onlyTenant = <C>(counts: Record<string, Record<string, C>>, tenant: string): Record<string, Record<string, C>> =>
  Object.fromEntries(Object.entries(counts).flatMap(([label, { [tenant]: c }]) => (c === undefined ? [] : [[label, { [tenant]: c }]])));

/** Everything; with a tenant its part only: its tokens, payments, own clock (the shared one as `clock`), counters and own set. */
function stateParts(deps: ControllerDeps, tenant?: string): StateParts {
  const { clocks, engine } = deps;
  const mine = (t: string): boolean => tenant === undefined || t === tenant;
  const payments = deps.payments.store;
  return {
    head: {
      format: 'token-sim-state',
      version: 1,
      clock: view(clocks.shared),
      tenantClocks: Object.fromEntries([...clocks.forks()].filter(([t]) => mine(t)).map(([t, clock]) => [t, view(clock)])),
      counters: {
        ids: only(deps.ids.counters(), (key) => mine(tenantOfCounter(key))),
        scenarios: tenant === undefined ? engine.counters() : onlyTenant(engine.counters(), tenant),
        tenantScenarios: only(engine.tenantCounters(), mine),
      },
      scenarios: sealScenarioSets(new Map([...engine.tenantSets()].filter(([t]) => mine(t))), deps.siv),
      payments: (tenant === undefined ? payments.tenants() : [tenant]).flatMap((t) => payments.list(t)).map(paymentToState),
    },
    tokens: [...liveTokens(deps, tenant)],
    toState: (token) => tokenToState(token, deps.siv),
  };
}

type Named = (snapshot: StateSnapshot) => [name: string, path: FieldPath][];
const keysOf = (record: Record<string, unknown> | undefined, ...at: string[]): [string, FieldPath][] => Object.keys(record ?? {}).map((name) => [name, [...at, name]]);

/** Where a snapshot names a tenant, each with the path of a problem with it. */
const NAMED = {
  tokens: (s) => s.tokens.map((t, i) => [t.tenant, ['tokens', i, 'tenant']]),
  payments: (s) => (s.payments ?? []).map((p, i) => [p.tenant, ['payments', i, 'tenant']]),
  tenantClocks: (s) => keysOf(s.tenantClocks, 'tenantClocks'),
  ids: (s) => Object.keys(s.counters.ids).map((key) => [tenantOfCounter(key), ['counters', 'ids', key]]),
  scenarioCounts: (s) => Object.entries(s.counters.scenarios ?? {}).flatMap(([label, byTenant]) => keysOf(byTenant, 'counters', 'scenarios', label)),
  tenantScenarios: (s) => keysOf(s.counters.tenantScenarios, 'counters', 'tenantScenarios'),
  scenarios: (s) => keysOf(s.scenarios, 'scenarios'),
} satisfies Record<string, Named>;

/** Refuses a snapshot naming a tenant the import may not write: with a tenant, any other; without, one not configured. */
function refuseNames(deps: ControllerDeps, snapshot: StateSnapshot, tenant: string | undefined): void {
  // A token or clock of a name that is not configured would be out of every reach.
  const places = tenant === undefined ? (['tokens', 'tenantClocks', 'scenarios', 'payments'] as const) : (Object.keys(NAMED) as (keyof typeof NAMED)[]);
  const refused = (name: string): string | undefined =>
    tenant === undefined ? (deps.isTenant(name) ? undefined : `'${name}' is not a configured username`) : name === tenant ? undefined : `this import writes tenant '${tenant}' only`;
  refuseState(
    places.flatMap((place) =>
      NAMED[place](snapshot).flatMap(([name, path]): FieldProblem[] => {
        const message = refused(name);
        return message === undefined ? [] : [{ errorName: 'fieldHasInvalidValue', message, path }];
      }),
    ),
  );
}

/** Replaces the whole state (tokens of configured tenants only), or one tenant's part with a snapshot naming no other; nothing changes on a refusal. */
function importState(deps: ControllerDeps, data: unknown, tenant?: string): void {
  const { clocks, engine } = deps;
  const { snapshot, tokens } = parseState(data, deps.siv, (t) => deps.scenarios.current(t).extension);
  refuseNames(deps, snapshot, tenant);
  // Everything is checked; from here on nothing can fail half-way. With a tenant, the other tenants' parts are kept.
  const kept = (t: string): boolean => tenant !== undefined && t !== tenant;
  // Read before the sets are replaced (which drops their counts).
  const counts: ScenarioCounters = tenant === undefined ? {} : engine.counters();
  const ownCounts = tenant === undefined ? {} : only(engine.tenantCounters(), kept);
  if (tenant === undefined) {
    clocks.dropForks();
    clocks.shared.set(instantMs(snapshot.clock.now), snapshot.clock.frozen);
  }
  for (const [t, c] of Object.entries(snapshot.tenantClocks)) clocks.fork(t).set(instantMs(c.now), c.frozen);
  deps.ids.restoreCounters({ ...only(deps.ids.counters(), (key) => kept(tenantOfCounter(key))), ...snapshot.counters.ids });
  // An empty set is none.
  deps.scenarios.restoreTenantSets({ ...Object.fromEntries([...engine.tenantSets()].filter(([owner]) => kept(owner))), ...snapshot.scenarios });
  for (const byTenant of Object.values(counts)) if (tenant !== undefined) delete byTenant[tenant];
  for (const [label, byTenant] of Object.entries(snapshot.counters.scenarios ?? {})) for (const [t, c] of Object.entries(byTenant)) (counts[label] ??= {})[t] = c;
  engine.restoreCounters(counts, { ...ownCounts, ...snapshot.counters.tenantScenarios });
  if (tenant === undefined) deps.store.replaceAll(tokens);
  else {
    deps.store.clear(tenant);
    for (const token of tokens) deps.store.insert(token);
  }
  deps.payments.store.replaceAll((snapshot.payments ?? []).map(paymentFromState), tenant);
  sweep(deps, tenant, true);
}

const RANGE = 'the clock runs from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

const outOfRange = () => fieldError('fieldHasInvalidValue', ['now'], `now must be inside the clock's range: ${RANGE}`);

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
      const nowMs = deps.clocks.of(tenant).now();
      const ms = advanceMs(parseBody(clockAdvanceBody, body).by, nowMs);
      if (ms === undefined) throw fieldError('fieldHasInvalidValue', ['by'], 'by must be a non-negative ISO 8601 duration (P8D) or number of milliseconds');
      if (ms > LATEST_INSTANT - nowMs) throw fieldError('fieldHasInvalidValue', ['by'], `by would move the clock past its range: ${RANGE}`);
      target(deps.clocks, tenant).advance(ms);
      sweep(deps, tenant);
      return view(deps.clocks.of(tenant));
    },
    /** `{now, frozen?}`; swept before and after the move: setting a clock back never brings an expired token back. */
    setClock(body: unknown, tenant?: string): ClockState {
      const { now, frozen } = parseBody(clockSetBody, body);
      const epochMs = parseInstant(now) ?? Number.NaN;
      if (!isInRange(epochMs)) throw outOfRange();
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
    tokens: (tenant?: string): Token[] => tokenPage(liveTokens(deps, tenant)).tokens,
    /** A page of live tokens (one tenant's, or every tenant's) after a position, in `tokens()`' order. */
    tokenPage: (tenant: string | undefined, after?: TokenPosition, limit?: number) => tokenPage(liveTokens(deps, tenant), after, limit),
    /** The oldest `filter.limit` entries that pass the (trusted: cleanJournalFilter) filter, masked; `count` is how many pass it. */
    requests(tenant: string | undefined, filter: JournalFilter): { requests: JournalEntry[]; count: number } {
      const { selected, count } = journal.select(tenant, filter);
      return { requests: selected.map(toEntry), count };
    },
    clearRequests: (tenant?: string): void => journal.clear(tenant),
    /** A snapshot (everything, or one tenant's part: decision 0026) taken now, as text written a slice at a time. */
    exportStateText: (tenant: string | undefined, options: StateTextOptions): AsyncGenerator<string> => stateText(stateParts(deps, tenant), options),
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

/**
 * The controller's state snapshots (decision 0026, 0027): everything, or one tenant's part, exported in parts
 * to be written a slice at a time, and imported whole (checked first, so nothing changes on a refusal).
 */
import { formatInstant } from '../wire/instant.js';
import type { FieldPath, FieldProblem } from '../wire/problems.js';
import type { Token } from '../domain/token.js';
import type { Scenario } from '../scenarios/schema.js';
import type { PaymentStore, Store } from '../domain/ports.js';
import type { TenantClocks, VirtualClock } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Journal } from './journal.js';
import { instantMs, paymentFromState, paymentToState } from './payment-state.js';
import { parseState, refuseState, sealScenarioSets, tokenToState, type ClockState, type StateSnapshot, type TokenState } from './state.js';

/** What the controller and its snapshots work with. */
export interface ControllerDeps {
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
  /** Whether a name is a configured credential (a tenant). */
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

/** A snapshot in parts: everything but the tokens, the live tokens as they are now, and the conversion of one token to its snapshot form. */
export interface StateParts {
  head: Omit<StateSnapshot, 'tokens'>;
  tokens: Token[];
  toState: (token: Token) => TokenState;
}

export const view = (clock: VirtualClock): ClockState => ({ now: formatInstant(clock.now()), frozen: clock.frozen });

/** The live tokens of one tenant, or of every tenant, each by its tenant's clock. */
export function* liveTokens(deps: ControllerDeps, tenant: string | undefined): Generator<Token> {
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
export function sweep(deps: ControllerDeps, tenant: string | undefined, forksToo = false): number {
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

/** The entries of a record whose key passes. */
const only = <V>(record: Record<string, V>, keep: (key: string) => boolean): Record<string, V> =>
  Object.fromEntries(Object.entries(record).filter(([key]) => keep(key)));

/** Per-label counts of one tenant only. */
function onlyTenant<C>(counts: Record<string, Record<string, C>>, tenant: string): Record<string, Record<string, C>> {
  const out: Record<string, Record<string, C>> = {};
  for (const [label, byTenant] of Object.entries(counts)) {
    const c = byTenant[tenant];
    if (c !== undefined) out[label] = { [tenant]: c };
  }
  return out;
}

/** Everything; with a tenant its part only: its tokens, payments, own clock (the shared one as `clock`), counters and own set. */
export function stateParts(deps: ControllerDeps, tenant?: string): StateParts {
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

/** A problem for each name in these places that is refused, throwing them all. */
function refuseNames(snapshot: StateSnapshot, places: readonly (keyof typeof NAMED)[], refused: (name: string) => boolean, message: (name: string) => string): void {
  const problems = places.flatMap((place) => NAMED[place](snapshot).flatMap(([name, path]): FieldProblem[] => (refused(name) ? [{ errorName: 'fieldHasInvalidValue', message: message(name), path }] : [])));
  refuseState(problems);
}

/** Replaces the whole state (tokens of configured tenants only); changes nothing and throws when the snapshot is not valid. */
export function importState(deps: ControllerDeps, data: unknown): void {
  const { clocks } = deps;
  const { snapshot, tokens } = parseState(data, deps.siv, (t) => deps.scenarios.current(t).extension);
  // An import writes configured tenants only: a token or clock of any other name would be out of every reach.
  refuseNames(snapshot, ['tokens', 'tenantClocks', 'scenarios', 'payments'], (name) => !deps.isTenant(name), (name) => `'${name}' is not a configured username`);
  // Everything is checked; from here on nothing can fail half-way.
  clocks.dropForks();
  clocks.shared.set(instantMs(snapshot.clock.now), snapshot.clock.frozen);
  for (const [tenant, c] of Object.entries(snapshot.tenantClocks)) clocks.fork(tenant).set(instantMs(c.now), c.frozen);
  deps.ids.restoreCounters(snapshot.counters.ids);
  deps.scenarios.restoreTenantSets(snapshot.scenarios ?? {});
  deps.engine.restoreCounters(snapshot.counters.scenarios ?? {}, snapshot.counters.tenantScenarios ?? {});
  deps.store.replaceAll(tokens);
  deps.payments.store.replaceAll((snapshot.payments ?? []).map(paymentFromState));
  sweep(deps, undefined, true);
}

/** Replaces one tenant's part of the state with a snapshot's, which must name no other tenant. */
export function importTenantState(deps: ControllerDeps, data: unknown, tenant: string): void {
  const { clocks, engine, store } = deps;
  const { snapshot, tokens } = parseState(data, deps.siv, (t) => deps.scenarios.current(t).extension);
  refuseNames(snapshot, Object.keys(NAMED) as (keyof typeof NAMED)[], (name) => name !== tenant, () => `this import writes tenant '${tenant}' only`);
  // Everything is checked; from here on nothing can fail half-way. Other tenants' parts are kept as they are.
  const own = snapshot.tenantClocks[tenant];
  if (own) clocks.fork(tenant).set(instantMs(own.now), own.frozen);
  deps.ids.restoreCounters({ ...only(deps.ids.counters(), (key) => tenantOfCounter(key) !== tenant), ...snapshot.counters.ids });
  const sets: Record<string, readonly Scenario[]> = Object.fromEntries([...engine.tenantSets()].filter(([owner]) => owner !== tenant));
  const mine = snapshot.scenarios?.[tenant];
  if (mine && mine.length > 0) sets[tenant] = mine;
  const counts = engine.counters();
  const ownCounts = engine.tenantCounters();
  deps.scenarios.restoreTenantSets(sets);
  for (const byTenant of Object.values(counts)) delete byTenant[tenant];
  for (const [label, byTenant] of Object.entries(snapshot.counters.scenarios ?? {})) {
    const c = byTenant[tenant];
    if (c) (counts[label] ??= {})[tenant] = c;
  }
  delete ownCounts[tenant];
  const ownNext = snapshot.counters.tenantScenarios?.[tenant];
  engine.restoreCounters(counts, ownNext ? { ...ownCounts, [tenant]: ownNext } : ownCounts);
  store.clear(tenant);
  for (const token of tokens) store.insert(token);
  deps.payments.store.replaceAll((snapshot.payments ?? []).map(paymentFromState), tenant);
  sweep(deps, tenant);
}

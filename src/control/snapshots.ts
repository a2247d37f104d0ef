/**
 * The controller's state snapshots (decision 0026, 0027): everything, or one tenant's part, exported in parts
 * to be written a slice at a time, and imported whole (checked first, so nothing changes on a refusal).
 */
import { formatInstant } from '../wire/instant.js';
import type { FieldPath, FieldProblem } from '../wire/problems.js';
import type { Token } from '../domain/token.js';
import type { PaymentStore, Store } from '../domain/ports.js';
import type { TenantClocks, VirtualClock } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioCounters, ScenarioEngine } from '../scenarios/engine.js';
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

const only = <V>(record: Record<string, V>, keep: (key: string) => boolean): Record<string, V> =>
  Object.fromEntries(Object.entries(record).filter(([key]) => keep(key)));

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
export function importState(deps: ControllerDeps, data: unknown, tenant?: string): void {
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

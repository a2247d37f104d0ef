/**
 * The control plane behind both /_sim and the library: clocks (shared or per tenant), reset, tokens,
 * the journal, and state snapshots. Without a tenant, a call acts on every tenant.
 */
import { WireError, schemaError, type FieldPath, type FieldProblem } from '../wire/problems.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import type { PaymentStore, Profiles, Store } from '../domain/ports.js';
import type { Token } from '../domain/token.js';
import type { TenantClocks, VirtualClock } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Scenario } from '../scenarios/schema.js';
import type { Journal, JournalEntry, JournalFilter, JournalSelection } from './journal.js';
import { toEntry } from './journal-entry.js';
import { tokenPage, type TokenPosition } from './token-pages.js';
import { parseState, sealScenarioSets, tokenToState, type ClockState, type StateSnapshot, type TokenState } from './state.js';
import { foreignParts, onlyTenant, tenantOfCounter } from './tenant-state.js';
import { paymentFromState, paymentToState } from './payment-state.js';

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
  scenarios: ActiveScenarios;
  /** The profile in force: imported tokens without an extension of their own take its extension. */
  profiles: Profiles;
  /** Whether a name is a configured credential (a tenant). */
  isTenant(name: string): boolean;
  /** Drops the webhook queue and delivery log (of one tenant, or all) at a reset (decision 0030). */
  clearWebhooks?(tenant?: string): void;
  /** Payments: their store, and the catch-up of a tenant's events that are due by its clock (a clock move). */
  payments?: { store: PaymentStore; catchUp(tenant: string): number };
  /** Told after each reset (of one tenant, or all, `undefined`): a whole reset clears health's store report (decision 0041). */
  afterReset?(tenant: string | undefined): void;
}

export interface Controller {
  clock(tenant?: string): ClockState;
  advanceClock(ms: number, tenant?: string): ClockState;
  setClock(epochMs: number, frozen: boolean | undefined, tenant?: string): ClockState;
  reset(tenant?: string): void;
  /** Live tokens, oldest first. */
  tokens(tenant?: string): Token[];
  /** A page of live tokens (one tenant's, or every tenant's) after a position, in `tokens()`' order. */
  tokenPage(tenant: string | undefined, after: TokenPosition | undefined, limit: number): { tokens: Token[]; more: boolean };
  /**
   * The journal (one tenant's, or every tenant's): the oldest `filter.limit` entries that pass the filter
   * (all without a limit), newest last, card data masked; `count` is how many pass it. The filter is
   * trusted: check it first (checkJournalFilter) when it comes from outside.
   */
  requests(tenant?: string, filter?: JournalFilter): { requests: JournalEntry[]; count: number };
  /** The same selection as kept records, for other presentations of the journal (HAR). */
  requestRecords(tenant?: string, filter?: JournalFilter): { records: JournalSelection[]; count: number };
  clearRequests(tenant?: string): void;
  /** The global scenario set, or one tenant's own set. */
  scenarios(tenant?: string): readonly Scenario[];
  /**
   * Replaces the global scenario set, or one tenant's own set (an empty list clears it); `paths` locate
   * them in the request body.
   */
  loadScenarios(scenarios: readonly Scenario[], paths?: readonly FieldPath[], tenant?: string): void;
  /** Everything, or one tenant's part only (decision 0026). */
  exportState(tenant?: string): StateSnapshot;
  /**
   * The same snapshot in parts, to be written a slice at a time: everything but the tokens, the live
   * tokens as they are now, and the conversion of one token to its snapshot form.
   */
  exportStateParts(tenant?: string): { head: Omit<StateSnapshot, 'tokens'>; tokens: Token[]; toState: (token: Token) => TokenState };
  /**
   * Replaces the whole state (tokens of configured tenants only), or with a tenant that tenant's part only,
   * every other tenant untouched; changes nothing and throws when the snapshot is not valid.
   */
  importState(data: unknown, tenant?: string): void;
  /** Deletes every tenant's expired tokens, each by its tenant's clock; returns how many (a periodic sweep). */
  sweepExpired(): number;
}

const view = (clock: VirtualClock): ClockState => ({ now: formatInstant(clock.now()), frozen: clock.frozen });

export function createController(deps: ControllerDeps): Controller {
  const { clocks, store, journal } = deps;

  /**
   * The clock a call moves: the tenant's own (forked on first use), or the shared one — which every tenant
   * without a fork follows. A fork moves only by calls naming its tenant.
   */
  const target = (tenant: string | undefined): VirtualClock => (tenant === undefined ? clocks.shared : clocks.fork(tenant));

  /**
   * Deletes the tokens that have expired by the clock a call moves (the tenant's own, or the shared one for
   * every tenant following it), before and after the move: setting a clock back never brings an expired token
   * back, and moving it on frees what expires (decision 0023). The store's expiry heap makes it cheap.
   */
  function sweepExpired(tenant: string | undefined): void {
    const forked = clocks.forks();
    const tenants = tenant === undefined ? store.tenants().filter((t) => !forked.has(t)) : [tenant];
    for (const t of tenants) store.sweepExpired(t, clocks.now(t));
    catchUpPayments(tenant);
  }

  /**
   * The payment events that the clock a call moved has made due, caught up (and their webhooks queued) before
   * the call answers: the tenant's, or every tenant's that follows the shared clock.
   */
  function catchUpPayments(tenant: string | undefined): void {
    const payments = deps.payments;
    if (!payments) return;
    const forked = clocks.forks();
    const tenants = tenant === undefined ? payments.store.tenants().filter((t) => !forked.has(t)) : [tenant];
    for (const t of tenants) payments.catchUp(t);
  }

  const paymentsOf = (tenant: string | undefined) =>
    (deps.payments ? (tenant === undefined ? deps.payments.store.tenants() : [tenant]).flatMap((t) => deps.payments?.store.list(t) ?? []) : []).map(paymentToState);

  /** Every tenant's expired tokens, each by its own clock. */
  function sweepAll(): number {
    let removed = 0;
    for (const t of store.tenants()) removed += store.sweepExpired(t, clocks.now(t));
    for (const t of deps.payments?.store.tenants() ?? []) deps.payments?.catchUp(t);
    return removed;
  }

  function liveTokens(tenant: string): Token[] {
    const now = clocks.now(tenant);
    return store.list(tenant).filter((t) => now < t.expiresAt);
  }

  function stateParts(scope?: string): ReturnType<Controller['exportStateParts']> {
    if (scope !== undefined) return tenantStateParts(scope);
    const tenantClocks: Record<string, ClockState> = {};
    for (const [tenant, clock] of clocks.forks()) tenantClocks[tenant] = view(clock);
    return {
      head: {
        format: 'token-sim-state',
        version: 1,
        clock: view(clocks.shared),
        tenantClocks,
        counters: { ids: deps.ids.counters(), scenarios: deps.engine.counters(), tenantScenarios: deps.engine.tenantCounters() },
        scenarios: sealScenarioSets(deps.engine.tenantSets(), deps.siv),
        payments: paymentsOf(undefined),
      },
      tokens: store.tenants().flatMap(liveTokens),
      toState: (token) => tokenToState(token, deps.siv),
    };
  }

  /**
   * One tenant's part of a snapshot: its live tokens, its own clock when it has one (the shared clock as
   * `clock` either way), its id and scenario counters, and its own scenario set.
   */
  function tenantStateParts(tenant: string): ReturnType<Controller['exportStateParts']> {
    const fork = clocks.forks().get(tenant);
    const ids = Object.fromEntries(Object.entries(deps.ids.counters()).filter(([key]) => tenantOfCounter(key) === tenant));
    const scenarioCounts = onlyTenant(deps.engine.counters(), tenant);
    const ownCounts = deps.engine.tenantCounters()[tenant];
    const set = deps.engine.tenantSets().get(tenant);
    return {
      head: {
        format: 'token-sim-state',
        version: 1,
        clock: view(clocks.shared),
        tenantClocks: fork ? { [tenant]: view(fork) } : {},
        counters: { ids, scenarios: scenarioCounts, tenantScenarios: ownCounts ? { [tenant]: ownCounts } : {} },
        scenarios: sealScenarioSets(new Map(set ? [[tenant, set]] : []), deps.siv),
        payments: paymentsOf(tenant),
      },
      tokens: liveTokens(tenant),
      toState: (token) => tokenToState(token, deps.siv),
    };
  }

  /** Replaces one tenant's part of the state with a snapshot's, which must name no other tenant. */
  function importTenantState(data: unknown, tenant: string): void {
    const { snapshot, tokens } = parseState(data, deps.siv, (t) => deps.profiles.current(t).extension);
    const problems = foreignParts(snapshot, tenant);
    if (problems.length > 0) throw schemaError(problems, 'The state does not match the schema');
    // Everything is checked; from here on nothing can fail half-way. Other tenants' parts are kept as they are.
    const own = snapshot.tenantClocks[tenant];
    if (own) clocks.fork(tenant).set(parseInstant(own.now) ?? Number.NaN, own.frozen);
    const ids = Object.fromEntries(Object.entries(deps.ids.counters()).filter(([key]) => tenantOfCounter(key) !== tenant));
    deps.ids.restoreCounters({ ...ids, ...snapshot.counters.ids });
    const sets: Record<string, readonly Scenario[]> = {};
    for (const [owner, set] of deps.engine.tenantSets()) if (owner !== tenant) sets[owner] = set;
    const mine = snapshot.scenarios?.[tenant];
    if (mine && mine.length > 0) sets[tenant] = mine;
    const counts = deps.engine.counters();
    const ownCounts = deps.engine.tenantCounters();
    deps.scenarios.restoreTenantSets(sets);
    for (const byTenant of Object.values(counts)) delete byTenant[tenant];
    for (const [label, byTenant] of Object.entries(snapshot.counters.scenarios ?? {})) {
      const c = byTenant[tenant];
      if (c) (counts[label] ??= {})[tenant] = c;
    }
    delete ownCounts[tenant];
    const ownNext = snapshot.counters.tenantScenarios?.[tenant];
    deps.engine.restoreCounters(counts, ownNext ? { ...ownCounts, [tenant]: ownNext } : ownCounts);
    store.clear(tenant);
    for (const token of tokens) store.insert(token);
    store.sweepExpired(tenant, clocks.now(tenant));
    deps.payments?.store.replaceAll((snapshot.payments ?? []).map(paymentFromState), tenant);
    catchUpPayments(tenant);
  }

  return {
    clock: (tenant) => view(clocks.of(tenant)),

    advanceClock(ms, tenant) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new WireError('bodyDoesNotMatchSchema', 'advance takes a non-negative duration');
      target(tenant).advance(ms);
      sweepExpired(tenant);
      return view(clocks.of(tenant));
    },

    setClock(epochMs, frozen, tenant) {
      sweepExpired(tenant);
      target(tenant).set(epochMs, frozen);
      sweepExpired(tenant);
      return view(clocks.of(tenant));
    },

    reset(tenant) {
      store.clear(tenant);
      journal.clear(tenant);
      deps.engine.resetCounters(tenant);
      deps.clearWebhooks?.(tenant);
      deps.payments?.store.clear(tenant);
      deps.preload(tenant);
      deps.afterReset?.(tenant);
    },

    scenarios: (tenant) => deps.scenarios.list(tenant),
    loadScenarios: (scenarios, paths, tenant) => deps.scenarios.load(scenarios, paths, tenant),

    tokens(tenant) {
      const tenants = tenant === undefined ? store.tenants() : [tenant];
      return tokenPage(tenants.flatMap(liveTokens), undefined, Number.MAX_SAFE_INTEGER - 1).tokens;
    },

    tokenPage(tenant, after, limit) {
      const tenants = tenant === undefined ? store.tenants() : [tenant];
      function* live(): Generator<Token> {
        for (const t of tenants) {
          const now = clocks.now(t);
          for (const token of store.list(t)) if (now < token.expiresAt) yield token;
        }
      }
      return tokenPage(live(), after, limit);
    },

    requests(tenant, filter) {
      const { selected, count } = journal.select(tenant, filter);
      return { requests: selected.map(toEntry), count };
    },
    requestRecords(tenant, filter) {
      const { selected, count } = journal.select(tenant, filter);
      return { records: selected, count };
    },
    clearRequests: (tenant) => journal.clear(tenant),

    exportStateParts: stateParts,

    exportState(tenant) {
      const { head, tokens, toState } = stateParts(tenant);
      return { ...head, tokens: tokens.map(toState) };
    },

    importState(data, tenant) {
      if (tenant !== undefined) {
        importTenantState(data, tenant);
        return;
      }
      const { snapshot, tokens } = parseState(data, deps.siv, (t) => deps.profiles.current(t).extension);
      // An import writes configured tenants only: a token or clock of any other name would be out of every reach.
      const stranger = (name: string): string => `'${name}' is not a configured username`;
      const problems: FieldProblem[] = [
        ...snapshot.tokens.flatMap((t, i): FieldProblem[] => (deps.isTenant(t.tenant) ? [] : [{ errorName: 'fieldHasInvalidValue', message: stranger(t.tenant), path: ['tokens', i, 'tenant'] }])),
        ...Object.keys(snapshot.tenantClocks)
          .filter((name) => !deps.isTenant(name))
          .map((name): FieldProblem => ({ errorName: 'fieldHasInvalidValue', message: stranger(name), path: ['tenantClocks', name] })),
        ...Object.keys(snapshot.scenarios ?? {})
          .filter((name) => !deps.isTenant(name))
          .map((name): FieldProblem => ({ errorName: 'fieldHasInvalidValue', message: stranger(name), path: ['scenarios', name] })),
        ...(snapshot.payments ?? []).flatMap((p, i): FieldProblem[] =>
          deps.isTenant(p.tenant) ? [] : [{ errorName: 'fieldHasInvalidValue', message: stranger(p.tenant), path: ['payments', i, 'tenant'] }],
        ),
      ];
      if (problems.length > 0) throw schemaError(problems, 'The state does not match the schema');
      // Everything is checked; from here on nothing can fail half-way.
      const at = (iso: string): number => parseInstant(iso) ?? Number.NaN;
      clocks.dropForks();
      clocks.shared.set(at(snapshot.clock.now), snapshot.clock.frozen);
      for (const [tenant, c] of Object.entries(snapshot.tenantClocks)) clocks.fork(tenant).set(at(c.now), c.frozen);
      deps.ids.restoreCounters(snapshot.counters.ids);
      deps.scenarios.restoreTenantSets(snapshot.scenarios ?? {});
      deps.engine.restoreCounters(snapshot.counters.scenarios ?? {}, snapshot.counters.tenantScenarios ?? {});
      store.replaceAll(tokens);
      deps.payments?.store.replaceAll((snapshot.payments ?? []).map(paymentFromState));
      sweepAll();
    },

    sweepExpired: sweepAll,
  };
}

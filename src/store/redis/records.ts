/** A shared store's records (decision 0039): each part of one simulator's memory as a Redis hash field, and back. */
import type { PaymentStore, Store } from '../../domain/ports.js';
import type { ClockSetting, TenantClocks } from '../../infra/clock.js';
import type { IdSource } from '../../infra/ids.js';
import type { Siv } from '../../infra/siv.js';
import type { ActiveScenarios } from '../../scenarios/active-set.js';
import type { ScenarioEngine, TenantCounts } from '../../scenarios/engine.js';
import type { Scenario } from '../../scenarios/schema.js';
import type { SharedJournal } from './journal.js';
import { paymentFromState, paymentToState } from '../../control/payment-state.js';
import type { PaymentState, TokenState } from '../../control/snapshot-types.js';
import { openScenarioSets, sealScenarioSets, tokenFromState, tokenToState } from '../../control/state.js';

/** What a shared store reads and writes of the rest of one simulator, given once that exists (StoreSet.bind). */
export interface StoreParts {
  clocks: TenantClocks;
  ids: IdSource;
  engine: ScenarioEngine;
  scenarios: ActiveScenarios;
  siv: Siv;
  /** Puts this process's memory back to the configured start (a Redis that lost its state). */
  restart(): void;
  /** Counts a lost store (`token_sim_store_resets_total`). */
  countReset(): void;
  /** Where the line that says so goes (stderr). */
  writeErr(line: string): void;
}

interface ReplicaParts extends StoreParts {
  store: Store;
  payments: PaymentStore;
  outbox: RecordKind & { forget(tenant: string): void };
  journal: SharedJournal;
}

interface Meta {
  ids: Record<string, number>;
  counts: TenantCounts;
  /** How many times the tenant's journal was cleared. */
  journal?: number;
}

/** The prefixes of a tenant's fields kept one per id (`k:<id>`…). */
export const TOKEN = 'k:';
export const PAYMENT = 'p:';
export const OUTBOX = 'w:';

/** A tenant's fields compared with what Redis holds rather than tracked: its scenario set, clock and counters. */
export const COMPARED: readonly string[] = ['s', 'c', 'm'];

/** A kind of record ('' when gone): one field per id under a prefix (`ids` lists them), or one field (id ''). */
interface RecordKind {
  read(tenant: string, id: string): string;
  apply(tenant: string, id: string, text: string): void;
  ids?(tenant: string): Iterable<string>;
}

/** Scenario sets as record values: sealed as in a snapshot, each kept by identity (a set is replaced whole). */
function createSetCodec(siv: Siv) {
  // A commit compares the set on every batch and must not seal and serialise every rule again each time.
  const sealed = new WeakMap<readonly Scenario[], string>();
  return {
    seal(list: readonly Scenario[], tenant: string): string {
      if (list.length === 0) return '';
      let text = sealed.get(list);
      if (text === undefined) sealed.set(list, (text = JSON.stringify(sealScenarioSets(new Map([[tenant, list]]), siv)[tenant])));
      return text;
    },
    open(text: string, tenant: string): Scenario[] {
      if (text === '') return [];
      const { data } = openScenarioSets({ scenarios: { [tenant]: JSON.parse(text) as unknown } }, siv);
      return (data as { scenarios: Record<string, Scenario[]> }).scenarios[tenant] ?? [];
    },
  };
}

/** The kinds of a tenant's records, by prefix or field name. */
function tenantKinds(parts: ReplicaParts, sets: ReturnType<typeof createSetCodec>): Map<string, RecordKind> {
  const { store, payments, clocks, ids, engine, siv } = parts;
  const kinds: Record<string, RecordKind> = {
    [TOKEN]: {
      read: (tenant, id) => {
        const found = store.get(tenant, id);
        return found === undefined ? '' : JSON.stringify(tokenToState(found, siv));
      },
      apply(tenant, id, text) {
        store.remove(tenant, id);
        if (text === '') return;
        const state = JSON.parse(text) as TokenState;
        const number = siv.open(state.sealedCardNumber);
        if (number !== undefined) store.insert(tokenFromState(state, number, parts.scenarios.current(tenant).extension));
      },
      ids: (tenant) => store.list(tenant).map((found) => found.tokenId),
    },
    [PAYMENT]: {
      read: (tenant, id) => {
        const found = payments.get(tenant, id);
        return found === undefined ? '' : JSON.stringify(paymentToState(found));
      },
      apply(tenant, id, text) {
        payments.remove(tenant, id);
        if (text !== '') payments.put(paymentFromState(JSON.parse(text) as PaymentState));
      },
      ids: (tenant) => payments.list(tenant).map((found) => found.paymentId),
    },
    [OUTBOX]: parts.outbox,
    m: {
      read: (tenant) => JSON.stringify({ ids: ids.tenantCounters(tenant), counts: engine.countsOf(tenant), journal: parts.journal.generation(tenant) } satisfies Meta),
      apply(tenant, _id, text) {
        const meta: Meta = text === '' ? { ids: {}, counts: { global: {}, own: {} } } : (JSON.parse(text) as Meta);
        ids.restoreTenantCounters(tenant, meta.ids);
        engine.restoreCountsOf(tenant, meta.counts);
        parts.journal.cleared(tenant, meta.journal ?? 0);
      },
    },
    c: {
      read: (tenant) => {
        const fork = clocks.forks().get(tenant);
        return fork === undefined ? '' : JSON.stringify(fork.state());
      },
      apply: (tenant, _id, text) => (text === '' ? clocks.dropFork(tenant) : clocks.fork(tenant).restore(JSON.parse(text) as ClockSetting)),
    },
    s: {
      read: (tenant) => sets.seal(engine.scenarios(tenant), tenant),
      apply: (tenant, _id, text) => parts.scenarios.restoreSet(sets.open(text, tenant), tenant),
    },
  };
  // A Map: a field read from Redis is looked up, never a property of Object.prototype.
  return new Map(Object.entries(kinds));
}

/** A field's kind: its prefix (`k:`, `p:`, `w:`) or its whole name. */
const kindOf = (field: string): string => (field.charAt(1) === ':' ? field.slice(0, 2) : field);

export function createRecords(parts: ReplicaParts) {
  const { store, payments, clocks, ids, engine, scenarios } = parts;
  const sets = createSetCodec(parts.siv);
  const kinds = tenantKinds(parts, sets);
  return {
    /** The shared records, in the order put back: the scenario set first (it restarts counts that the tenants' `m` restore). */
    global: new Map<string, { read(): string; apply(text: string): void }>([
      ['scn', { read: () => sets.seal(engine.scenarios(undefined), ''), apply: (text) => scenarios.restoreSet(sets.open(text, '')) }],
      ['clock', { read: () => JSON.stringify(clocks.shared.state()), apply: (text) => clocks.shared.restore(JSON.parse(text) as ClockSetting) }],
    ]),

    all(tenant: string): Map<string, string> {
      const out = new Map<string, string>();
      for (const [key, kind] of kinds) for (const id of kind.ids?.(tenant) ?? ['']) out.set(key + id, kind.read(tenant, id));
      return out;
    },

    value(tenant: string, field: string): string {
      const key = kindOf(field);
      return kinds.get(key)?.read(tenant, field.slice(key.length)) ?? '';
    },

    /** Puts one field's value (null or '': gone) into this process's memory. */
    apply(tenant: string, field: string, value: string | null): void {
      const key = kindOf(field);
      kinds.get(key)?.apply(tenant, field.slice(key.length), value ?? '');
    },

    /** Forgets a tenant's memory (before it is loaded again whole). */
    forget(tenant: string): void {
      store.clear(tenant);
      payments.clear(tenant);
      clocks.dropFork(tenant);
      ids.restoreTenantCounters(tenant, {});
      engine.restoreCountsOf(tenant, { global: {}, own: {} });
      parts.outbox.forget(tenant);
    },
  };
}

export type Records = ReturnType<typeof createRecords>;

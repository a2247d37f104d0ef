/**
 * A shared store's records (decision 0039): how each part of one simulator's memory is written as a Redis hash
 * field, and put back from one. Tokens and payments are one field each (`k:<id>`, `p:<id>`); a tenant's
 * counters (id streams and scenario counts) are `m`, its own clock `c` and its own scenario set `s`; the shared
 * clock and the global scenario set are the global fields `clock` and `scn`. Card numbers travel sealed, as in
 * a state snapshot.
 */
import type { Duration } from '../../domain/duration.js';
import type { Payment } from '../../domain/payment.js';
import type { PaymentStore, Store } from '../../domain/ports.js';
import type { Token } from '../../domain/token.js';
import type { ClockSetting } from '../../infra/clock.js';
import type { Siv } from '../../infra/siv.js';
import type { TenantCounts } from '../../scenarios/engine.js';
import type { Scenario } from '../../scenarios/schema.js';
import type { StoreParts } from '../store-parts.js';
import type { SharedJournal } from './journal.js';
import { OUTBOX_PREFIX, type Outbox } from './outbox.js';
import { paymentFromState, paymentToState, type PaymentState } from '../../control/payment-state.js';
import { openScenarioSets, sealScenarioSets, tokenFromState, tokenToState, type TokenState } from '../../control/state.js';

export interface ReplicaParts extends Pick<StoreParts, 'clocks' | 'ids' | 'engine' | 'scenarios' | 'siv'> {
  store: Store;
  payments: PaymentStore;
  /** The extension in force for a tenant (a token record always carries its own). */
  extensionOf(tenant: string): Duration;
  /** The webhook outbox (store/redis/outbox.ts): its `w:<eventId>` records. */
  outbox: Outbox;
  /** The shared journal: its clears (store/redis/journal.ts). */
  journal: SharedJournal;
}

interface Meta {
  ids: Record<string, number>;
  counts: TenantCounts;
  /** How many times the tenant's journal was cleared. */
  journal?: number;
}

const TOKEN = 'k:';
const PAYMENT = 'p:';

export const tokenField = (id: string): string => `${TOKEN}${id}`;
export const paymentField = (id: string): string => `${PAYMENT}${id}`;

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

type SetCodec = ReturnType<typeof createSetCodec>;

/** Puts one field's value (null or '': gone) into this process's memory. */
function applyField(parts: ReplicaParts, sets: SetCodec, tenant: string, field: string, value: string | null): void {
  const { store, payments, siv } = parts;
  const text = value ?? '';
  if (field.startsWith(TOKEN)) {
    store.remove(tenant, field.slice(TOKEN.length));
    if (text === '') return;
    const state = JSON.parse(text) as TokenState;
    const number = siv.open(state.sealedCardNumber);
    if (number !== undefined) store.insert(tokenFromState(state, number, parts.extensionOf(tenant)));
  } else if (field.startsWith(PAYMENT)) {
    payments.remove(tenant, field.slice(PAYMENT.length));
    if (text !== '') payments.put(paymentFromState(JSON.parse(text) as PaymentState));
  } else if (field === 'm') {
    const meta: Meta = text === '' ? { ids: {}, counts: { global: {}, own: {} } } : (JSON.parse(text) as Meta);
    parts.ids.restoreTenantCounters(tenant, meta.ids);
    parts.engine.restoreCountsOf(tenant, meta.counts);
    parts.journal.cleared(tenant, meta.journal ?? 0);
  } else if (field === 'c') {
    if (text === '') parts.clocks.dropFork(tenant);
    else parts.clocks.fork(tenant).restore(JSON.parse(text) as ClockSetting);
  } else if (field === 's') {
    parts.scenarios.restoreSet(sets.open(text, tenant), tenant);
  } else if (field.startsWith(OUTBOX_PREFIX)) {
    parts.outbox.apply(tenant, field.slice(OUTBOX_PREFIX.length), value);
  }
}

export function createRecords(parts: ReplicaParts) {
  const { store, payments, clocks, ids, engine, scenarios, siv } = parts;
  const sets = createSetCodec(siv);
  const tokenText = (token: Token): string => JSON.stringify(tokenToState(token, siv));
  const paymentText = (payment: Payment): string => JSON.stringify(paymentToState(payment));

  const records = {
    meta(tenant: string): string {
      const meta: Meta = { ids: ids.tenantCounters(tenant), counts: engine.countsOf(tenant), journal: parts.journal.generation(tenant) };
      return JSON.stringify(meta);
    },
    clock(tenant: string): string {
      const fork = clocks.forks().get(tenant);
      return fork === undefined ? '' : JSON.stringify(fork.state());
    },
    sharedClock: (): string => JSON.stringify(clocks.shared.state()),
    /** The tenant's own scenario set ('' for none), or the global set. */
    scenarioSet: (tenant: string | undefined): string => sets.seal(engine.scenarios(tenant), tenant ?? ''),

    /** Every field of a tenant as this process holds it. */
    all(tenant: string): Map<string, string> {
      const out = new Map<string, string>();
      for (const token of store.list(tenant)) out.set(tokenField(token.tokenId), tokenText(token));
      for (const payment of payments.list(tenant)) out.set(paymentField(payment.paymentId), paymentText(payment));
      out.set('m', records.meta(tenant));
      out.set('c', records.clock(tenant));
      out.set('s', records.scenarioSet(tenant));
      for (const [field, value] of parts.outbox.entries(tenant)) out.set(field, value);
      return out;
    },

    /** A changed field's value now ('' when gone): a token's record, a payment's, an outbox entry's. */
    value(tenant: string, field: string): string {
      if (field.startsWith(TOKEN)) {
        const token = store.get(tenant, field.slice(TOKEN.length));
        return token === undefined ? '' : tokenText(token);
      }
      if (field.startsWith(PAYMENT)) {
        const payment = payments.get(tenant, field.slice(PAYMENT.length));
        return payment === undefined ? '' : paymentText(payment);
      }
      return field.startsWith(OUTBOX_PREFIX) ? parts.outbox.value(tenant, field.slice(OUTBOX_PREFIX.length)) : '';
    },

    apply: (tenant: string, field: string, value: string | null): void => applyField(parts, sets, tenant, field, value),

    applyGlobal(field: string, value: string): void {
      if (field === 'clock') clocks.shared.restore(JSON.parse(value) as ClockSetting);
      else if (field === 'scn') scenarios.restoreSet(sets.open(value, ''));
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
  return records;
}

export type Records = ReturnType<typeof createRecords>;

/** In-memory payments per tenant, at most `perTenant` (the oldest go: decision 0029), with a heap of their scheduled instants. */
import type { Payment, PaymentDraft } from '../domain/payment.js';
import type { PaymentStore } from '../domain/ports.js';
import { HEAP_SLACK, entryOf, newSet, partitions, removeFrom, type Changed } from './memory-store.js';
import { createExpiryHeap, type ExpiryHeap } from '../infra/expiry-heap.js';

interface TenantPayments {
  byId: Map<string, Payment>;
  /** (instant, payment id) of every scheduled event; stale entries are skipped when popped, and rebuilt away. */
  due: ExpiryHeap<string>;
  /** Payment ids in the order stored, from `head` on (a Map's first key is no queue: finding it walks every deleted entry). */
  order: string[];
  head: number;
  /** Payment ids by transactionReference, oldest first: the duplicate check and the payment queries read it. */
  byReference: Map<string, Set<string>>;
}

const DEFAULT_PAYMENTS_PER_TENANT = 10_000;

const newTenant = (): TenantPayments => ({ byId: new Map(), due: createExpiryHeap(), order: [], head: 0, byReference: new Map() });

export function createMemoryPaymentStore(perTenant = DEFAULT_PAYMENTS_PER_TENANT, changed?: Changed): PaymentStore {
  const { tenants, clear, ...common } = partitions<Payment, TenantPayments>(changed);

  function put(payment: Payment): void {
    const p = entryOf(tenants, payment.tenant, newTenant);
    const before = p.byId.size;
    p.byId.set(payment.paymentId, payment);
    if (p.byId.size > before) {
      p.order.push(payment.paymentId);
      entryOf(p.byReference, payment.transactionReference, newSet<string>).add(payment.paymentId);
    }
    if (payment.settlesAt !== undefined) p.due.push(payment.settlesAt, payment.paymentId);
    for (const event of payment.scheduled) p.due.push(event.at, payment.paymentId);
    changed?.(payment.tenant, payment.paymentId);
    while (p.byId.size > perTenant && p.head < p.order.length) {
      const dropped = p.order[p.head++] as string;
      if (drop(p, dropped)) changed?.(payment.tenant, dropped);
    }
    if (p.head > 1024 && p.head * 2 > p.order.length) {
      p.order = p.order.slice(p.head);
      p.head = 0;
    }
  }

  return {
    ...common,
    put,
    remove(tenant, paymentId) {
      // Its place in the order queue goes stale and is skipped when the oldest are dropped.
      const p = tenants.get(tenant);
      if (p && drop(p, paymentId)) changed?.(tenant, paymentId);
    },
    update(tenant, paymentId, change) {
      const p = tenants.get(tenant);
      if (p && updateIn(p, paymentId, change)) changed?.(tenant, paymentId);
    },
    due: (tenant, now) => dueIn(tenants.get(tenant), now),
    byReference(tenant, reference) {
      const p = tenants.get(tenant);
      return [...(p?.byReference.get(reference) ?? [])].map((id) => p?.byId.get(id) as Payment).reverse();
    },
    tenants: () => [...tenants.keys()].filter((t) => (tenants.get(t)?.byId.size ?? 0) > 0),
    clear,
    replaceAll(payments, tenant) {
      clear(tenant);
      for (const payment of payments) if (tenant === undefined || payment.tenant === tenant) put(payment);
    },
  };
}

/** Removes a stored payment and its place in the reference index; false when it is not stored. */
function drop(p: TenantPayments, paymentId: string): boolean {
  const payment = p.byId.get(paymentId);
  if (!payment) return false;
  p.byId.delete(paymentId);
  removeFrom(p.byReference, payment.transactionReference, paymentId);
  return true;
}

/** Changes a stored payment and notes what the change scheduled, so a clock move visits it when due; false when not stored. */
function updateIn(p: TenantPayments, paymentId: string, change: (payment: PaymentDraft) => void): boolean {
  const payment = p.byId.get(paymentId);
  if (!payment) return false;
  const { settlesAt, scheduled } = payment;
  change(payment as PaymentDraft);
  if (payment.settlesAt !== undefined && payment.settlesAt !== settlesAt) p.due.push(payment.settlesAt, paymentId);
  for (const event of payment.scheduled) if (!scheduled.includes(event)) p.due.push(event.at, paymentId);
  if (p.due.size > 2 * p.byId.size + HEAP_SLACK) rebuild(p);
  return true;
}

/** The heap of scheduled instants again, from the stored payments alone. */
function rebuild(p: TenantPayments): void {
  const entries: [number, string][] = [];
  for (const payment of p.byId.values()) {
    if (payment.settlesAt !== undefined) entries.push([payment.settlesAt, payment.paymentId]);
    for (const event of payment.scheduled) entries.push([event.at, payment.paymentId]);
  }
  p.due.rebuild(entries);
}

/** The ids of the payments with an event noted as due by `now`, each noted instant taken once. */
function dueIn(p: TenantPayments | undefined, now: number): string[] {
  const ids: string[] = [];
  if (!p) return ids;
  for (let at = p.due.peekAt(); at !== undefined && at <= now; at = p.due.peekAt()) {
    const id = p.due.pop() as string;
    if (p.byId.has(id) && ids[ids.length - 1] !== id) ids.push(id);
  }
  return ids;
}

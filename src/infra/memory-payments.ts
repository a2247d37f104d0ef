/**
 * In-memory payment storage: per tenant, by id in insertion order, with the set of payments that have events
 * scheduled by the clock. At most `perTenant` payments are kept per tenant; beyond that the oldest goes
 * (a load test's millions of sales must not grow memory without bound: decision 0029).
 */
import type { Payment } from '../domain/payment.js';
import type { PaymentStore } from '../domain/ports.js';

interface TenantPayments {
  byId: Map<string, Payment>;
  scheduled: Set<string>;
}

export const DEFAULT_PAYMENTS_PER_TENANT = 100_000;

export function createMemoryPaymentStore(perTenant = DEFAULT_PAYMENTS_PER_TENANT): PaymentStore {
  const tenants = new Map<string, TenantPayments>();
  let total = 0;

  function partition(tenant: string): TenantPayments {
    let p = tenants.get(tenant);
    if (!p) {
      p = { byId: new Map(), scheduled: new Set() };
      tenants.set(tenant, p);
    }
    return p;
  }

  function put(payment: Payment): void {
    const p = partition(payment.tenant);
    if (!p.byId.has(payment.paymentId)) total++;
    p.byId.set(payment.paymentId, payment);
    if (payment.scheduled.length > 0) p.scheduled.add(payment.paymentId);
    while (p.byId.size > perTenant) {
      const oldest = p.byId.keys().next().value as string;
      p.byId.delete(oldest);
      p.scheduled.delete(oldest);
      total--;
    }
  }

  function clear(tenant?: string): void {
    if (tenant === undefined) {
      tenants.clear();
      total = 0;
      return;
    }
    total -= tenants.get(tenant)?.byId.size ?? 0;
    tenants.delete(tenant);
  }

  return {
    get: (tenant, paymentId) => tenants.get(tenant)?.byId.get(paymentId),
    put,
    markScheduled(tenant, paymentId, scheduled) {
      const p = tenants.get(tenant);
      if (!p) return;
      if (scheduled && p.byId.has(paymentId)) p.scheduled.add(paymentId);
      else p.scheduled.delete(paymentId);
    },
    scheduled: (tenant) => [...(tenants.get(tenant)?.scheduled ?? [])],
    list: (tenant) => [...(tenants.get(tenant)?.byId.values() ?? [])],
    tenants: () => [...tenants.keys()].filter((t) => (tenants.get(t)?.byId.size ?? 0) > 0),
    clear,
    replaceAll(payments, tenant) {
      clear(tenant);
      for (const payment of payments) if (tenant === undefined || payment.tenant === tenant) put(payment);
    },
    size: () => total,
  };
}

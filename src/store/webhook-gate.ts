/** The deliveries a scenario rule holds back, kept as records of their tenant (contract 4.4, decision 0056). */
import type { WebhookDispatcher, WebhookItem } from '../infra/webhooks.js';
import { entryOf, newMap } from './memory-store.js';

/** Where the held deliveries are kept, and how one is handed on: memory's calls, which the Redis outbox answers too. */
export type HeldDeliveries = ReturnType<typeof memoryHeldDeliveries>;

const unheld = ({ hold: _hold, ...item }: WebhookItem): WebhookItem => item;

/** A held delivery's name among its tenant's: the delivery's id (the event id for a delivery without one). */
export const idOf = (item: WebhookItem): string => item.id ?? item.eventId;

/** Delivers an item, then whatever was held to follow it, depth first: each right after the one it follows. */
function release(store: HeldDeliveries, item: WebhookItem): void {
  store.deliver(unheld(item));
  for (const next of store.held(item.tenant)) {
    if (next.hold !== undefined && 'after' in next.hold && next.hold.after === item.id) release(store, next);
  }
}

/** A store set's webhook calls over its held deliveries, memory's or the Redis outbox (StoreSet extends them). */
export function heldWebhooks(store: HeldDeliveries, dispatcher: WebhookDispatcher) {
  return {
    /** Hands one payment event's deliveries on (decision 0056): what waited for the payment's next event follows them; held ones are kept and shown held. */
    sendEvent(items: readonly WebhookItem[]): void {
      const first = items[0];
      const last = items[items.length - 1];
      if (first === undefined || last === undefined) return;
      for (const waiting of store.held(first.tenant)) {
        if (waiting.orderKey === first.orderKey && waiting.hold !== undefined && 'next' in waiting.hold) store.keep({ ...waiting, hold: { after: last.id ?? '' } });
      }
      if (first.hold !== undefined) {
        for (const item of items) {
          store.keep(item);
          store.show(item);
        }
        return;
      }
      for (const item of items) release(store, item);
    },
    /** Releases the tenant's deliveries a rule delayed until its virtual `now` or before, soonest first. */
    releaseWebhooks(tenant: string, now: number): void {
      const until = (item: WebhookItem): number => (item.hold !== undefined && 'until' in item.hold ? item.hold.until : Number.POSITIVE_INFINITY);
      const due = store.held(tenant).filter((item) => until(item) <= now);
      due.sort((a, b) => until(a) - until(b));
      for (const item of due) release(store, item);
    },
    /** A reset drops the tenant's (or every) webhook queue. */
    clearWebhooks(tenant: string | undefined): void {
      dispatcher.clear(tenant);
      store.clear(tenant);
    },
  };
}

/** The memory store's held deliveries: per tenant, by id, in the order they were held. */
export function memoryHeldDeliveries(dispatcher: WebhookDispatcher) {
  const byTenant = new Map<string, Map<string, WebhookItem>>();
  return {
    held: (tenant: string): WebhookItem[] => [...(byTenant.get(tenant)?.values() ?? [])],
    /** Records a delivery as held, or its new hold. */
    keep: (item: WebhookItem): void => void entryOf(byTenant, item.tenant, newMap<string, WebhookItem>).set(idOf(item), item),
    /** Hands a delivery (its hold dropped) to the dispatcher, once what released it is committed. */
    deliver(item: WebhookItem): void {
      byTenant.get(item.tenant)?.delete(idOf(item));
      dispatcher.enqueue(item);
    },
    /** Shows a delivery held in the log, once what held it is committed. */
    show: (item: WebhookItem): void => dispatcher.hold(item),
    clear(tenant?: string): void {
      if (tenant === undefined) byTenant.clear();
      else byTenant.delete(tenant);
    },
  };
}

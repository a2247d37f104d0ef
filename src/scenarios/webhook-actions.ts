/**
 * The deliveries of one payment event (contract 4.4, decision 0056): the event as it is, or as the first rule on
 * `operation: webhook` that matches it scripts. Matched where the event happens, inside the unit that made it,
 * so that a rule's counts are the tenant's like every rule's (docs/consistency.md). Each delivery gets its own
 * id; the store's gate (store/webhook-gate.ts) holds back what a rule holds back.
 */
import { addDuration, parseDuration } from '../domain/duration.js';
import type { WebhookHold, WebhookItem } from '../infra/webhook-types.js';
import type { ScenarioEngine } from './engine.js';

/** A payment event's webhook, before rules: the delivery, and the facts a rule matches. */
export interface WebhookEvent {
  item: Omit<WebhookItem, 'id' | 'rule' | 'drop' | 'hold'>;
  type: string;
  transactionReference: string;
  /** The event's virtual time (epoch ms): what `between` looks at, and what a `delay` counts from. */
  at: number;
}

/**
 * The event's deliveries, in the order they go: one, or (`duplicate: n`) it and n copies with the same eventId;
 * held back until the payment's next event (`reorder`) or the virtual clock (`delay`), the copies right after
 * the first; or one that is never sent (`drop`). `newId` gives each delivery its id.
 */
export function eventDeliveries(engine: ScenarioEngine, event: WebhookEvent, newId: () => string): WebhookItem[] {
  const first: WebhookItem = { ...event.item, id: newId() };
  if (!engine.active()) return [first];
  const { tenant } = event.item;
  const applied = engine.match(tenant, { operation: 'webhook', username: tenant, type: event.type, transactionReference: event.transactionReference }, event.at);
  if (!applied) return [first];
  const { then } = applied.rule;
  const rule = applied.label;
  if (then.drop === true) return [{ ...first, rule, drop: true }];
  const delay = then.delay === undefined ? undefined : parseDuration(then.delay);
  const hold: WebhookHold | undefined = then.reorder === true ? { next: true } : delay === undefined ? undefined : { until: addDuration(event.at, delay) };
  const out: WebhookItem[] = [{ ...first, rule, ...(hold && { hold }) }];
  for (let n = 0; n < (then.duplicate ?? 0); n++) {
    const before = out[out.length - 1]?.id ?? '';
    out.push({ ...first, id: newId(), rule, ...(hold && { hold: { after: before } }) });
  }
  return out;
}

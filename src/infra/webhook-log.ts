/**
 * The webhook delivery log (decisions 0030, 0056): newest last, at most `size` (a Map in insertion order drops
 * the oldest in O(1)), found by seq for paging and by id for a release or a resend.
 */
import type { WebhookDelivery, WebhookFilter, WebhookItem, WebhookState } from './webhook-types.js';

/** A log entry: the delivery as shown, and the item it sends (a held one's is replaced by its release). */
export interface Entry {
  item: WebhookItem;
  record: WebhookDelivery;
}

/** A URL as the log shows it: a password in it is replaced by `***` (the request still sends it). */
function shownUrl(url: string): string {
  if (!url.includes('@') || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.href;
}

export class DeliveryLog {
  private readonly bySeq = new Map<number, Entry>();
  private readonly byId = new Map<string, Entry>();
  private seq = 0;

  constructor(private readonly size: number) {}

  /** A new entry for the item, in this state (a dropped one is finished as it is logged). */
  add(item: WebhookItem, state: WebhookState): Entry {
    const seq = ++this.seq;
    const at = new Date().toISOString();
    const record: WebhookDelivery = {
      seq,
      id: item.id ?? String(seq),
      eventId: item.eventId,
      type: item.type,
      rule: item.rule ?? null,
      url: shownUrl(item.url),
      tenant: item.tenant,
      attempts: 0,
      lastStatus: null,
      lastError: null,
      state,
      enqueuedAt: at,
      lastAttemptAt: null,
      finishedAt: state === 'dropped' ? at : null,
    };
    const entry: Entry = { item, record };
    this.bySeq.set(seq, entry);
    this.byId.set(record.id, entry);
    if (this.bySeq.size > this.size) {
      const oldest = this.bySeq.entries().next();
      if (oldest.done !== true) this.remove(oldest.value[0], oldest.value[1]);
    }
    return entry;
  }

  private remove(seq: number, entry: Entry): void {
    this.bySeq.delete(seq);
    if (this.byId.get(entry.record.id) === entry) this.byId.delete(entry.record.id);
  }

  /** The newest entry with this id. */
  get(id: string): Entry | undefined {
    return this.byId.get(id);
  }

  /** The oldest `limit` entries after `since` that pass the filter (copies), and how many pass it. */
  select(filter: WebhookFilter): { deliveries: WebhookDelivery[]; count: number } {
    const limit = filter.limit ?? Number.MAX_SAFE_INTEGER;
    const out: WebhookDelivery[] = [];
    let count = 0;
    for (const { record } of this.bySeq.values()) {
      if (filter.tenant !== undefined && record.tenant !== filter.tenant) continue;
      if (filter.state !== undefined && record.state !== filter.state) continue;
      if (filter.since !== undefined && record.seq <= filter.since) continue;
      count++;
      if (out.length < limit) out.push({ ...record });
    }
    return { deliveries: out, count };
  }

  /** Drops the entries of the tenant (or all). */
  clear(tenant?: string): void {
    for (const [seq, entry] of this.bySeq) if (tenant === undefined || entry.record.tenant === tenant) this.remove(seq, entry);
  }
}

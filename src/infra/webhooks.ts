/** Webhook delivery (contract 3.2, decisions 0030, 0056): one head in flight per order key, retries, a bounded log; nothing thrown escapes. */

export * from './webhook-types.js';
import { WEBHOOK_DEFAULTS, type WebhookDelivery, type WebhookFilter, type WebhookFlush, type WebhookItem, type WebhookOptions, type WebhookState } from './webhook-types.js';
import { Queue } from './queue.js';

/** A log entry: the delivery as shown, and the item it sends (a held one's is replaced by its release). */
interface Entry {
  item: WebhookItem;
  record: WebhookDelivery;
}

/** A key's queue: its head is the item in progress. */
interface KeyQueue {
  id: string;
  tenant: string;
  items: Queue<Entry>;
  timer?: NodeJS.Timeout | undefined;
  abort?: AbortController | undefined;
}

/** A URL as the log shows it: a password in it is replaced by `***` (the request still sends it). */
function shownUrl(url: string): string {
  if (!url.includes('@') || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.href;
}

const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;

export class WebhookDispatcher {
  private readonly limits: Record<keyof typeof WEBHOOK_DEFAULTS, number>;
  private readonly keys = new Map<string, KeyQueue>();
  /** Keys whose head may go; a cleared key's stale place is skipped. */
  private readonly ready = new Queue<KeyQueue>();
  /** The log, newest last, at most logSize (a Map in insertion order drops the oldest in O(1)). */
  private readonly bySeq = new Map<number, Entry>();
  private readonly byId = new Map<string, Entry>();
  private seq = 0;
  /** Requests on the wire, those of cleared keys included (their sockets are still open). */
  private sending = 0;
  private pumpScheduled = false;
  private closed = false;
  private readonly waiters = new Set<{ tenant: string | undefined; resolve: () => void }>();

  constructor(private readonly options: WebhookOptions) {
    const limits = Object.entries(WEBHOOK_DEFAULTS).map(([name, fallback]) => [name, positive(options[name as keyof typeof WEBHOOK_DEFAULTS], fallback)]);
    // A backoff of 0 (retry at once) is allowed.
    this.limits = { ...Object.fromEntries(limits), ...(options.backoffMs !== undefined && options.backoffMs >= 0 && { backoffMs: options.backoffMs }) } as typeof this.limits;
  }

  /** Items (of the tenant, when named) queued, in flight or waiting to retry. */
  pending(tenant?: string): number {
    let n = 0;
    for (const key of this.keys.values()) if (tenant === undefined || key.tenant === tenant) n += key.items.length;
    return n;
  }

  /** Nothing left: of the tenant, or at all (then no socket of a cleared key either). */
  private idle(tenant: string | undefined): boolean {
    return this.pending(tenant) === 0 && (tenant !== undefined || this.sending === 0);
  }

  private settleWaiters(): void {
    for (const waiter of this.waiters) {
      if (this.closed || this.idle(waiter.tenant)) waiter.resolve();
    }
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.closed) return;
    this.pumpScheduled = true;
    // Never on the caller's stack: enqueue only records; the next turn of the event loop sends. (Not unref'd:
    // an unref'd immediate lets the loop block in poll past it; a one-shot immediate keeps nothing alive.)
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed && this.sending < this.limits.concurrency) {
      const key = this.ready.shift();
      if (key === undefined) return;
      if (this.keys.get(key.id) === key) void this.attempt(key);
    }
  }

  private makeReady(key: KeyQueue): void {
    this.ready.push(key);
    this.schedulePump();
  }

  private async attempt(key: KeyQueue): Promise<void> {
    const entry = key.items.peek();
    if (entry === undefined) return;
    const { item, record } = entry;
    const abort = (key.abort = new AbortController());
    this.sending++;
    record.attempts++;
    record.lastAttemptAt = new Date().toISOString();
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = (await this.options.send({ url: item.url, body: item.body, mediaType: item.mediaType, timeoutMs: this.limits.timeoutMs, signal: abort.signal })).status;
      if (!(status >= 200 && status < 300)) error = `answered ${status}`;
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    } finally {
      this.sending--;
      key.abort = undefined;
    }
    try {
      this.settle(key, entry, status, error);
    } finally {
      this.settleWaiters();
      this.schedulePump();
    }
  }

  /** Records an attempt's answer: delivered (or failed for good), then the key's next item may go; else retried after a backoff. */
  private settle(key: KeyQueue, { item, record }: Entry, status: number | null, error: string | null): void {
    // A cleared key (reset) or a closed dispatcher: the answer is not recorded, nothing is retried.
    if (this.closed || this.keys.get(key.id) !== key) return;
    const ok = status !== null && error === null;
    record.lastStatus = status;
    record.lastError = error;
    if (ok || record.attempts >= this.limits.attempts) {
      record.state = ok ? 'delivered' : 'failed';
      record.finishedAt = new Date().toISOString();
      key.items.shift();
      if (key.items.length === 0) this.keys.delete(key.id);
      else this.makeReady(key);
      this.settleWaiters();
      this.options.onSettled?.(item, record.state);
      return;
    }
    key.timer = setTimeout(() => {
      key.timer = undefined;
      if (!this.closed && this.keys.get(key.id) === key) this.makeReady(key);
    }, this.limits.backoffMs * 2 ** (record.attempts - 1));
    // Unref'd, unless someone awaits flush(): then the wait is what keeps the process alive.
    if (this.waiters.size === 0) key.timer.unref();
  }

  /** A new log entry for the item, in this state (a dropped one is finished as it is logged). */
  private log(item: WebhookItem, state: WebhookState): Entry {
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
    if (this.bySeq.size > this.limits.logSize) {
      const oldest = this.bySeq.entries().next();
      if (oldest.done !== true) this.unlog(oldest.value[0], oldest.value[1]);
    }
    return entry;
  }

  private unlog(seq: number, entry: Entry): void {
    this.bySeq.delete(seq);
    if (this.byId.get(entry.record.id) === entry) this.byId.delete(entry.record.id);
  }

  /** Queues one delivery: synchronous, O(1), never throws. A `drop` item is only logged; a held one is released. */
  enqueue(item: WebhookItem): void {
    try {
      if (this.closed) return;
      if (item.drop === true) {
        this.log(item, 'dropped');
        return;
      }
      const held = item.id === undefined ? undefined : this.byId.get(item.id);
      const entry = held?.record.state === 'held' ? held : this.log(item, 'pending');
      entry.item = item;
      entry.record.state = 'pending';
      const id = `${item.tenant}\u0000${item.orderKey}`;
      let key = this.keys.get(id);
      if (key === undefined) {
        key = { id, tenant: item.tenant, items: new Queue() };
        this.keys.set(id, key);
        this.makeReady(key);
      }
      key.items.push(entry);
    } catch {
      // Never the caller's problem: a delivery that cannot be queued is simply not sent.
    }
  }

  /** Logs a delivery a rule holds back (decision 0056), as `held`: not queued, not pending. */
  hold(item: WebhookItem): void {
    if (!this.closed) this.log(item, 'held');
  }

  /** The delivery the log shows under this id (the newest; a resend sends it again), or undefined. */
  find(id: string): WebhookItem | undefined {
    return this.byId.get(id)?.item;
  }

  /** The log (newest last) that passes the filter: the oldest `limit` after `since` (copies), and how many pass. */
  deliveries(filter: WebhookFilter = {}): { deliveries: WebhookDelivery[]; count: number } {
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

  /** Resolves once nothing (of the tenant) is pending, or after `timeoutMs`, or at close. */
  flush({ tenant, timeoutMs: limit }: { tenant?: string; timeoutMs?: number } = {}): Promise<WebhookFlush> {
    const summary = (): WebhookFlush => ({ flushed: this.idle(tenant), pending: this.pending(tenant) });
    if (this.closed || this.idle(tenant)) return Promise.resolve(summary());
    for (const key of this.keys.values()) key.timer?.ref();
    return new Promise<WebhookFlush>((resolve) => {
      const waiter = {
        tenant,
        resolve: () => {
          this.waiters.delete(waiter);
          clearTimeout(timer);
          resolve(summary());
        },
      };
      this.waiters.add(waiter);
      const timer = limit === undefined ? undefined : setTimeout(waiter.resolve, limit);
    });
  }

  /** Drops queued items and log entries of the tenant (or all); an attempt in flight is cut, neither retried nor logged. */
  clear(tenant?: string): void {
    try {
      for (const key of [...this.keys.values()]) {
        if (tenant !== undefined && key.tenant !== tenant) continue;
        this.keys.delete(key.id);
        clearTimeout(key.timer);
        key.abort?.abort();
      }
      for (const [seq, entry] of this.bySeq) if (tenant === undefined || entry.record.tenant === tenant) this.unlog(seq, entry);
    } finally {
      this.settleWaiters();
    }
  }

  /** Stops timers and sockets (a cleared key's attempt was cut already); later items are ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const key of this.keys.values()) {
      clearTimeout(key.timer);
      key.abort?.abort();
    }
    try {
      this.options.onClose?.();
    } catch {
      // Shutdown goes on.
    }
    this.settleWaiters();
  }
}

/**
 * Webhook delivery (contract 3.2, decision 0030): a queue per order key (a payment), only the head of a key in
 * flight, different keys concurrently up to a bound, retries with exponential backoff in real time, and a
 * bounded delivery log. The transport is injected (`send`: the http layer's node:http/https sender), so this
 * module holds the rules only. No module-level state; every timer is unref'd; nothing thrown escapes.
 */

export type { WebhookDelivery, WebhookDispatcher, WebhookFilter, WebhookFlush, WebhookItem, WebhookOptions, WebhookRequest, WebhookSend, WebhookState } from './webhook-types.js';
import type { WebhookDelivery, WebhookDispatcher, WebhookFlush, WebhookItem, WebhookOptions } from './webhook-types.js';

export const WEBHOOK_DEFAULTS = { concurrency: 8, attempts: 5, backoffMs: 100, timeoutMs: 5000, logSize: 10_000 } as const;

interface Entry {
  item: WebhookItem;
  record: WebhookDelivery;
}

/** A key's queue: `head` indexes the item in progress; the array is compacted when the head passes half. */
interface KeyQueue {
  id: string;
  tenant: string;
  items: Entry[];
  head: number;
  phase: 'ready' | 'sending' | 'waiting';
  timer?: NodeJS.Timeout | undefined;
  abort?: AbortController | undefined;
}

/** A FIFO of keys with O(1) push and shift. */
class KeyFifo {
  private items: KeyQueue[] = [];
  private head = 0;
  push(key: KeyQueue): void {
    this.items.push(key);
  }
  shift(): KeyQueue | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }
  remove(drop: (key: KeyQueue) => boolean): void {
    this.items = this.items.slice(this.head).filter((k) => !drop(k));
    this.head = 0;
  }
}

/** A URL as the log shows it: a password in it is replaced by `***` (the request still sends it). */
function shownUrl(url: string): string {
  if (!url.includes('@') || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.href;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 500);

const positive = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;

export function createWebhookDispatcher(options: WebhookOptions): WebhookDispatcher {
  const concurrency = positive(options.concurrency, WEBHOOK_DEFAULTS.concurrency);
  const maxAttempts = positive(options.attempts, WEBHOOK_DEFAULTS.attempts);
  const backoffMs = options.backoffMs !== undefined && options.backoffMs >= 0 ? options.backoffMs : WEBHOOK_DEFAULTS.backoffMs;
  const timeoutMs = positive(options.timeoutMs, WEBHOOK_DEFAULTS.timeoutMs);
  const logSize = positive(options.logSize, WEBHOOK_DEFAULTS.logSize);
  const now = options.now ?? Date.now;
  const iso = (): string => new Date(now()).toISOString();

  const keys = new Map<string, KeyQueue>();
  const ready = new KeyFifo();
  /** The log by seq, in insertion order: the oldest is the first key. */
  const log = new Map<number, WebhookDelivery>();
  let seq = 0;
  let queued = 0;
  const queuedBy = new Map<string, number>();
  const count = (tenant: string, by: number): void => {
    const n = (queuedBy.get(tenant) ?? 0) + by;
    if (n === 0) queuedBy.delete(tenant);
    else queuedBy.set(tenant, n);
  };
  /** Requests on the wire, those of cleared keys included (their sockets are still open). */
  let sending = 0;
  let pumpScheduled = false;
  let closed = false;
  const waiters = new Set<{ tenant: string | undefined; resolve: () => void }>();
  const aborts = new Set<AbortController>();

  const pendingOf = (tenant: string | undefined): number => (tenant === undefined ? queued : (queuedBy.get(tenant) ?? 0));
  /** Nothing left: of the tenant, or at all (then no socket of a cleared key either). */
  const idle = (tenant: string | undefined): boolean => pendingOf(tenant) === 0 && (tenant !== undefined || sending === 0);
  function settleWaiters(): void {
    for (const waiter of waiters) {
      if (closed || idle(waiter.tenant)) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  function schedulePump(): void {
    if (pumpScheduled || closed) return;
    pumpScheduled = true;
    // Never on the caller's stack: enqueue only records; the next turn of the event loop sends. (Not unref'd:
    // an unref'd immediate lets the loop block in poll past it; a one-shot immediate keeps nothing alive.)
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (!closed && sending < concurrency) {
      const key = ready.shift();
      if (key === undefined) return;
      if (keys.get(key.id) !== key || key.phase !== 'ready') continue;
      void attempt(key);
    }
  }

  function makeReady(key: KeyQueue): void {
    key.phase = 'ready';
    ready.push(key);
    schedulePump();
  }

  /** The head of a key is done (delivered or given up): the next item of the key may go. */
  function advance(key: KeyQueue): void {
    key.items[key.head] = undefined as unknown as Entry;
    key.head++;
    queued--;
    count(key.tenant, -1);
    if (key.head >= key.items.length) {
      keys.delete(key.id);
    } else {
      if (key.head > 64 && key.head * 2 > key.items.length) {
        key.items = key.items.slice(key.head);
        key.head = 0;
      }
      makeReady(key);
    }
    settleWaiters();
  }

  async function attempt(key: KeyQueue): Promise<void> {
    const entry = key.items[key.head];
    if (entry === undefined) return;
    const { item, record } = entry;
    key.phase = 'sending';
    const abort = new AbortController();
    key.abort = abort;
    aborts.add(abort);
    sending++;
    record.attempts++;
    record.lastAttemptAt = iso();
    let ok = false;
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = (await options.send({ url: item.url, body: item.body, mediaType: item.mediaType, timeoutMs, signal: abort.signal })).status;
      ok = status >= 200 && status < 300;
      if (!ok) error = `answered ${status}`;
    } catch (err) {
      error = messageOf(err);
    } finally {
      sending--;
      aborts.delete(abort);
      key.abort = undefined;
    }
    try {
      // A cleared key (reset) or a closed dispatcher: the answer is not recorded, nothing is retried.
      if (closed || keys.get(key.id) !== key) return;
      record.lastStatus = status;
      record.lastError = error;
      if (ok || record.attempts >= maxAttempts) {
        record.state = ok ? 'delivered' : 'failed';
        record.finishedAt = iso();
        const item = key.items[key.head]?.item;
        advance(key);
        if (item) options.onSettled?.(item, record.state);
        return;
      }
      key.phase = 'waiting';
      key.timer = setTimeout(() => {
        key.timer = undefined;
        if (!closed && keys.get(key.id) === key) makeReady(key);
      }, backoffMs * 2 ** (record.attempts - 1));
      // Unref'd, unless someone awaits flush(): then the wait is what keeps the process alive.
      if (waiters.size === 0) key.timer.unref();
    } finally {
      settleWaiters();
      schedulePump();
    }
  }

  function addToLog(record: WebhookDelivery): void {
    log.set(record.seq, record);
    if (log.size > logSize) {
      const oldest = log.keys().next();
      if (oldest.done !== true) log.delete(oldest.value);
    }
  }

  return {
    enqueue(item) {
      try {
        if (closed) return;
        const record: WebhookDelivery = {
          seq: ++seq,
          eventId: item.eventId,
          type: item.type,
          url: shownUrl(item.url),
          tenant: item.tenant,
          attempts: 0,
          lastStatus: null,
          lastError: null,
          state: 'pending',
          enqueuedAt: iso(),
          lastAttemptAt: null,
          finishedAt: null,
        };
        addToLog(record);
        const id = `${item.tenant}\u0000${item.orderKey}`;
        let key = keys.get(id);
        queued++;
        count(item.tenant, 1);
        if (key === undefined) {
          key = { id, tenant: item.tenant, items: [{ item, record }], head: 0, phase: 'ready' };
          keys.set(id, key);
          makeReady(key);
        } else {
          key.items.push({ item, record });
        }
      } catch {
        // Never the caller's problem: a delivery that cannot be queued is simply not sent.
      }
    },

    deliveries(filter = {}) {
      const limit = filter.limit ?? Number.MAX_SAFE_INTEGER;
      const out: WebhookDelivery[] = [];
      let count = 0;
      for (const record of log.values()) {
        if (filter.tenant !== undefined && record.tenant !== filter.tenant) continue;
        if (filter.state !== undefined && record.state !== filter.state) continue;
        if (filter.since !== undefined && record.seq <= filter.since) continue;
        count++;
        if (out.length < limit) out.push({ ...record });
      }
      return { deliveries: out, count };
    },

    flush({ tenant, timeoutMs: limit } = {}) {
      const summary = (): WebhookFlush => ({ flushed: idle(tenant), pending: pendingOf(tenant) });
      if (closed || idle(tenant)) return Promise.resolve(summary());
      for (const key of keys.values()) key.timer?.ref();
      return new Promise<WebhookFlush>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const waiter = {
          tenant,
          resolve: () => {
            if (timer) clearTimeout(timer);
            resolve(summary());
          },
        };
        waiters.add(waiter);
        if (limit !== undefined) {
          timer = setTimeout(() => {
            waiters.delete(waiter);
            resolve(summary());
          }, limit);
        }
      });
    },

    clear(tenant) {
      try {
        for (const key of [...keys.values()]) {
          if (tenant !== undefined && key.tenant !== tenant) continue;
          keys.delete(key.id);
          queued -= key.items.length - key.head;
          count(key.tenant, -(key.items.length - key.head));
          if (key.timer) clearTimeout(key.timer);
          // An attempt in flight is cut: its answer would no longer be recorded anyway.
          key.abort?.abort();
        }
        ready.remove((key) => keys.get(key.id) !== key);
        for (const [n, record] of log) if (tenant === undefined || record.tenant === tenant) log.delete(n);
      } finally {
        settleWaiters();
      }
    },

    close() {
      if (closed) return;
      closed = true;
      for (const key of keys.values()) if (key.timer) clearTimeout(key.timer);
      for (const abort of aborts) abort.abort();
      try {
        options.onClose?.();
      } catch {
        // Shutdown goes on.
      }
      settleWaiters();
    },

    pending: pendingOf,
  };
}

/** The request journal: what each tenant's requests were and how they were answered, bounded per tenant. */
import { formatInstant } from '../wire/instant.js';
import { maskCardData, maskCardNumbersIn } from '../wire/mask.js';

export type Operation = 'createToken' | 'getToken' | 'updateToken' | 'deleteToken' | 'sale' | 'unknown';

/** What every journal entry says about its request, stored and listed alike. */
interface JournalFields {
  /** The Basic-auth username; null when the request was not authenticated. */
  tenant: string | null;
  operation: Operation;
  method: string;
  /** As requested when stored; card numbers in it are masked when listed. */
  path: string;
  status: number;
  errorName?: string;
  correlationId: string;
  durationMs: number;
  /** The scenario rule that shaped the answer, if any. */
  rule: string | null;
}

export interface JournalEntry extends JournalFields {
  /** Order in which answers were recorded (finished) in this simulator. */
  seq: number;
  /** The tenant's virtual time and the real time when the answer was sent. */
  virtualTime: string;
  realTime: string;
  /** The request body, card data masked; absent when there was none or it was not JSON. */
  requestBody?: unknown;
}

/** What is kept per request: cheap to record; times are formatted and card data masked when listed. */
export interface JournalRecord extends JournalFields {
  virtualMs: number;
  realMs: number;
  /**
   * The request body, parsed and masked only when listed; kept only up to MAX_BODY_BYTES. A Buffer is
   * turned into text when recorded: a small Buffer is a slice of an 8 KiB pool slab, and keeping it would
   * keep the whole slab.
   */
  body?: Buffer | string;
  /** The size of a body too large to keep. */
  omittedBodyBytes?: number;
}

/** Bodies over this size are not kept: the journal is bounded by entries, so entries must stay small. */
export const MAX_BODY_BYTES = 16 * 1024;

function toEntry(seq: number, r: JournalRecord): JournalEntry {
  let requestBody: unknown;
  if (r.omittedBodyBytes !== undefined) requestBody = `[a body of ${r.omittedBodyBytes} bytes, not kept]`;
  else if (r.body !== undefined) {
    try {
      requestBody = maskCardData(JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8')));
    } catch {
      requestBody = undefined;
    }
  }
  return {
    seq,
    tenant: r.tenant,
    operation: r.operation,
    method: r.method,
    path: maskCardNumbersIn(r.path),
    status: r.status,
    ...(r.errorName !== undefined && { errorName: r.errorName }),
    correlationId: r.correlationId,
    virtualTime: formatInstant(r.virtualMs),
    realTime: new Date(r.realMs).toISOString(),
    durationMs: r.durationMs,
    rule: r.rule,
    ...(requestBody !== undefined && { requestBody }),
  };
}

export interface Journal {
  record(entry: JournalRecord): void;
  /** One tenant's entries, or every tenant's (null: unauthenticated) when tenant is undefined; oldest first. */
  list(tenant?: string): JournalEntry[];
  clear(tenant?: string): void;
  /** What is held now: entries, and the characters of their kept bodies. */
  size(): { entries: number; bodyChars: number };
}

export interface JournalBounds {
  /** Entries kept per tenant (unauthenticated requests count as one tenant). */
  perTenant: number;
  /** Entries kept across all tenants: the oldest go first. */
  total: number;
  /** Characters of request bodies kept across all tenants: the oldest entries go first. */
  bodyChars: number;
}

/** 32 Mi characters of bodies at most, whatever the entry bounds. */
export const DEFAULT_BODY_CHARS = 32 * 1024 * 1024;

interface Stored {
  seq: number;
  record: JournalRecord;
  live: boolean;
}

/** A FIFO whose shift is amortised O(1). */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  /** Keeps only the items that pass (in order). */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.slice(this.head).filter(keep);
    this.head = 0;
  }
  toArray(): T[] {
    return this.items.slice(this.head);
  }
}

const bodyCharsOf = (r: JournalRecord): number => (typeof r.body === 'string' ? r.body.length : 0);

/**
 * Bounded per tenant and in total (entries and body characters): recording past a bound drops the oldest
 * entries at once, so the journal never holds more than its bounds, however many tenants there are.
 */
export function createJournal(bounds: JournalBounds): Journal {
  /** Every live entry in recording order, plus entries dropped by a tenant bound until compacted. */
  let all = new Queue<Stored>();
  const byTenant = new Map<string | null, Queue<Stored>>();
  let seq = 0;
  let entries = 0;
  let bodyChars = 0;

  function drop(stored: Stored): void {
    stored.live = false;
    entries--;
    bodyChars -= bodyCharsOf(stored.record);
  }

  /** Drops the oldest live entry of all (it is the oldest of its own tenant too). */
  function dropOldest(): void {
    let oldest = all.shift();
    while (oldest && !oldest.live) oldest = all.shift();
    if (!oldest) return;
    drop(oldest);
    const queue = byTenant.get(oldest.record.tenant);
    queue?.shift();
    if (queue?.length === 0) byTenant.delete(oldest.record.tenant);
  }

  return {
    record(entry) {
      if (bounds.perTenant <= 0 || bounds.total <= 0) return;
      let record = entry;
      if (entry.body !== undefined && entry.body.length > MAX_BODY_BYTES) {
        const { body, ...rest } = entry;
        record = { ...rest, omittedBodyBytes: body.length };
      } else if (Buffer.isBuffer(entry.body)) {
        record = { ...entry, body: entry.body.toString('utf8') };
      }
      const stored: Stored = { seq: ++seq, record, live: true };
      let queue = byTenant.get(record.tenant);
      if (!queue) byTenant.set(record.tenant, (queue = new Queue()));
      queue.push(stored);
      all.push(stored);
      entries++;
      bodyChars += bodyCharsOf(record);
      if (queue.length > bounds.perTenant) drop(queue.shift() as Stored);
      while (entries > bounds.total || (bodyChars > bounds.bodyChars && entries > 1)) dropOldest();
      // Entries dropped by a tenant bound wait in `all` until the head reaches them: compact when they dominate.
      if (all.length > 2 * entries + 1024) all.retain((s) => s.live);
    },
    list(tenant) {
      const kept = tenant !== undefined ? (byTenant.get(tenant)?.toArray() ?? []) : all.toArray().filter((s) => s.live);
      return kept.map((s) => toEntry(s.seq, s.record));
    },
    clear(tenant) {
      if (tenant === undefined) {
        all = new Queue();
        byTenant.clear();
        entries = 0;
        bodyChars = 0;
        return;
      }
      const queue = byTenant.get(tenant);
      if (!queue) return;
      for (const stored of queue.toArray()) drop(stored);
      byTenant.delete(tenant);
      all.retain((s) => s.live);
    },
    size: () => ({ entries, bodyChars }),
  };
}

/** The request journal: what each tenant's requests were and how they were answered, bounded per tenant. */
import { formatInstant } from '../domain/instant.js';
import { maskCardData, maskCardNumbersIn } from './mask.js';

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
}

interface Stored {
  seq: number;
  record: JournalRecord;
}

export function createJournal(sizePerTenant: number): Journal {
  const byTenant = new Map<string | null, Stored[]>();
  let seq = 0;
  return {
    record(entry) {
      if (sizePerTenant <= 0) return;
      let entries = byTenant.get(entry.tenant);
      if (!entries) byTenant.set(entry.tenant, (entries = []));
      let record = entry;
      if (entry.body !== undefined && entry.body.length > MAX_BODY_BYTES) {
        const { body, ...rest } = entry;
        record = { ...rest, omittedBodyBytes: body.length };
      } else if (Buffer.isBuffer(entry.body)) {
        entry.body = entry.body.toString('utf8');
      }
      entries.push({ seq: ++seq, record });
      // Amortised trim: drop the oldest in one splice once the buffer is 25 % over its bound.
      if (entries.length > sizePerTenant + Math.max(1, sizePerTenant >> 2)) entries.splice(0, entries.length - sizePerTenant);
    },
    list(tenant) {
      const trim = (entries: Stored[]): Stored[] => entries.slice(-sizePerTenant);
      const kept = tenant !== undefined ? trim(byTenant.get(tenant) ?? []) : [...byTenant.values()].flatMap(trim).sort((a, b) => a.seq - b.seq);
      return kept.map((s) => toEntry(s.seq, s.record));
    },
    clear(tenant) {
      if (tenant === undefined) byTenant.clear();
      else byTenant.delete(tenant);
    },
  };
}

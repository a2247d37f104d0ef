/** The request journal: what each tenant's requests were and how they were answered, bounded per tenant. */

export type Operation = 'createToken' | 'getToken' | 'updateToken' | 'deleteToken' | 'sale' | 'unknown';

export interface JournalEntry {
  /** Order in which answers were recorded (finished) in this simulator. */
  seq: number;
  /** The Basic-auth username; null when the request was not authenticated. */
  tenant: string | null;
  operation: Operation;
  method: string;
  path: string;
  status: number;
  errorName?: string;
  correlationId: string;
  /** The tenant's virtual time and the real time when the answer was sent. */
  virtualTime: string;
  realTime: string;
  durationMs: number;
  /** The scenario rule that shaped the answer, if any. */
  rule: string | null;
  /** The request body, card data masked; absent when there was none or it was not JSON. */
  requestBody?: unknown;
}

export interface Journal {
  record(entry: Omit<JournalEntry, 'seq'>): void;
  /** One tenant's entries, or every tenant's (null: unauthenticated) when tenant is undefined; oldest first. */
  list(tenant?: string): JournalEntry[];
  clear(tenant?: string): void;
}

export function createJournal(sizePerTenant: number): Journal {
  const byTenant = new Map<string | null, JournalEntry[]>();
  let seq = 0;
  return {
    record(entry) {
      if (sizePerTenant <= 0) return;
      let entries = byTenant.get(entry.tenant);
      if (!entries) byTenant.set(entry.tenant, (entries = []));
      entries.push({ seq: ++seq, ...entry });
      // Amortised trim: drop the oldest in one splice once the buffer is 25 % over its bound.
      if (entries.length > sizePerTenant + Math.max(1, sizePerTenant >> 2)) entries.splice(0, entries.length - sizePerTenant);
    },
    list(tenant) {
      const trim = (entries: JournalEntry[]): JournalEntry[] => entries.slice(-sizePerTenant);
      if (tenant !== undefined) return trim(byTenant.get(tenant) ?? []);
      return [...byTenant.values()].flatMap(trim).sort((a, b) => a.seq - b.seq);
    },
    clear(tenant) {
      if (tenant === undefined) byTenant.clear();
      else byTenant.delete(tenant);
    },
  };
}

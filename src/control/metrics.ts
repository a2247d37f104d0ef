/** One simulator's metrics on a prom-client Registry of its own, counted in plain maps and read when scraped (decision 0028). */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Operation } from './journal.js';

/** Tenants given series of their own: the busiest, by requests, at scrape time. */
export const TOP_TENANTS = 50;

/** Seconds: from a cached read to the longest scripted delay (60 s). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface MetricsSources {
  tokens: () => number;
  payments: () => number;
  /** What the journal holds now: entries and the characters of their kept bodies. */
  journal: () => { entries: number; bodyChars: number };
}

/** What prom-client's default lag measures: how long a callback queued now waits, in seconds. */
const eventLoopLag = (): Promise<number> => {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => setImmediate(() => resolve(Number(process.hrtime.bigint() - start) / 1e9)));
};

/** The gauges read when the metrics are scraped, in the order the exposition lists them. */
const GAUGES: readonly (readonly [name: string, help: string, read: (sources: MetricsSources) => number | Promise<number>])[] = [
  ['token_sim_tokens', 'Live tokens held, every tenant', (s) => s.tokens()],
  ['token_sim_payments', 'Payments held, every tenant (a sale makes one, approved or refused)', (s) => s.payments()],
  ['token_sim_journal_entries', 'Requests the journal holds', (s) => s.journal().entries],
  ['token_sim_journal_bytes', 'Request and response bodies the journal holds, in characters (bytes for ASCII bodies)', (s) => s.journal().bodyChars],
  ['process_resident_memory_bytes', 'Resident set size of the process (shared by every simulator in it)', () => process.memoryUsage.rss()],
  ['nodejs_eventloop_lag_seconds', 'How long a callback queued at scrape time waited for the event loop (shared by every simulator in the process)', eventLoopLag],
];

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics(sources: MetricsSources) {
  const registry = new Registry();
  const registers = [registry];
  // Handed to the counters when scraped (decision 0028); tenants are usernames: only the busiest become series.
  const byOperation = new Map<Operation, Map<number, number>>();
  const perTenant = new Map<string, number>();
  new Counter({
    name: 'token_sim_requests_total',
    help: 'Simulated API requests, by operation and HTTP status (0: closed unanswered)',
    labelNames: ['operation', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const [operation, byStatus] of byOperation) for (const [status, count] of byStatus) this.inc({ operation, status }, count);
    },
  });
  const latency = new Histogram({
    name: 'token_sim_request_duration_seconds',
    help: 'Time to answer a simulated API request, scripted delays included, by operation',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  new Counter({
    name: 'token_sim_tenant_requests_total',
    help: `Simulated API requests of each of the ${TOP_TENANTS} busiest tenants`,
    labelNames: ['tenant'] as const,
    registers,
    collect() {
      this.reset();
      const busiest = [...perTenant].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP_TENANTS);
      for (const [tenant, count] of busiest) this.inc({ tenant }, count);
    },
  });
  const storeResets = new Counter({
    name: 'token_sim_store_resets_total',
    help: 'Times this process found that the Redis store had lost its state (restarted empty) and started over',
    registers,
  });
  for (const [name, help, read] of GAUGES) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(await read(sources));
      },
    });
  }

  return {
    /** One answered (or unanswered: status 0) API request; `tenant` is null when it was not authenticated. */
    record(operation: Operation, status: number, tenant: string | null, durationMs: number): void {
      let byStatus = byOperation.get(operation);
      if (byStatus === undefined) byOperation.set(operation, (byStatus = new Map<number, number>()));
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      latency.observe({ operation }, durationMs / 1000);
      if (tenant !== null) perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
    },
    /** This process found that the Redis store had lost its state and started over (decision 0041). */
    storeReset: (): void => storeResets.inc(),
    /** The exposition text, read now. */
    scrape: (): Promise<string> => registry.metrics(),
    /** Its media type (`text/plain; version=0.0.4; charset=utf-8`). */
    contentType: registry.contentType,
  };
}

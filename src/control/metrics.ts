/**
 * One simulator's metrics in the Prometheus text format (decision 0028), through prom-client on a Registry of
 * its own: never prom-client's global registry, never collectDefaultMetrics, so that several simulators in
 * one process count apart. Recording a request is two Map increments (by operation and status, by tenant)
 * and one histogram observation; everything else (tokens, journal, RSS, event-loop lag, the 50 busiest tenants) is read when
 * the metrics are scraped.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Operation } from './journal.js';

/** Tenants given series of their own: the busiest, by requests, at scrape time. */
export const TOP_TENANTS = 50;

/** Seconds: from a cached read to the longest scripted delay (60 s). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface MetricsSources {
  /** Live tokens held, every tenant. */
  tokens: () => number;
  /** Payments held, every tenant. */
  payments: () => number;
  /** What the journal holds now: entries and the characters of their kept bodies. */
  journal: () => { entries: number; bodyChars: number };
}

export interface Metrics {
  /** One answered (or unanswered: status 0) API request; `tenant` is null when it was not authenticated. */
  record(operation: Operation, status: number, tenant: string | null, durationMs: number): void;
  /** This process found that the Redis store had lost its state and started over (decision 0041). */
  storeReset(): void;
  /** The exposition text, read now. */
  scrape(): Promise<string>;
  /** Its media type (`text/plain; version=0.0.4; charset=utf-8`). */
  readonly contentType: string;
}

/** How long a callback queued now waits for the event loop, in seconds (what prom-client's default lag measures). */
function eventLoopLagSeconds(): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) => setImmediate(() => resolve(Number(process.hrtime.bigint() - start) / 1e9)));
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Requests per authenticated tenant. Bounded: tenants are configured usernames (credentials), never
  // whatever a client sends; only the busiest TOP_TENANTS become series.
  const perTenant = new Map<string, number>();

  // Requests by operation, then status: counted in plain maps on the hot path (prom-client's labelled
  // increment hashes its labels each time) and handed to the counter when it is scraped.
  const byOperation = new Map<Operation, Map<number, number>>();

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
  new Gauge({
    name: 'token_sim_tokens',
    help: 'Live tokens held, every tenant',
    registers,
    collect() {
      this.set(sources.tokens());
    },
  });
  new Gauge({
    name: 'token_sim_payments',
    help: 'Payments held, every tenant (a sale makes one, approved or refused)',
    registers,
    collect() {
      this.set(sources.payments());
    },
  });
  new Gauge({
    name: 'token_sim_journal_entries',
    help: 'Requests the journal holds',
    registers,
    collect() {
      this.set(sources.journal().entries);
    },
  });
  new Gauge({
    name: 'token_sim_journal_bytes',
    help: 'Request and response bodies the journal holds, in characters (bytes for ASCII bodies)',
    registers,
    collect() {
      this.set(sources.journal().bodyChars);
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident set size of the process (shared by every simulator in it)',
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'How long a callback queued at scrape time waited for the event loop (shared by every simulator in the process)',
    registers,
    async collect() {
      this.set(await eventLoopLagSeconds());
    },
  });

  return {
    record(operation, status, tenant, durationMs) {
      let byStatus = byOperation.get(operation);
      if (byStatus === undefined) byOperation.set(operation, (byStatus = new Map<number, number>()));
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      latency.observe({ operation }, durationMs / 1000);
      if (tenant !== null) perTenant.set(tenant, (perTenant.get(tenant) ?? 0) + 1);
    },
    storeReset: () => storeResets.inc(),
    scrape: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

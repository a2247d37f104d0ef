/**
 * The webhook queue with a shared store (decision 0039): an outbox in Redis. A payment event's delivery is a
 * record of its tenant (`w:<eventId>`), written in the same commit as the change that caused it, so it is
 * never lost with a process. After the commit the process that made it delivers it (its dispatcher keeps
 * order, retries and the delivery log) and, once delivered or given up, removes the record. A record still
 * there a minute later belongs to a process that went away: another process takes it, under a lease so
 * that only one does, and delivers it (at least once: a receiver deduplicates by event id).
 */
import type { WebhookDispatcher, WebhookItem } from '../../infra/webhooks.js';

export interface OutboxJob {
  item: WebhookItem;
  /** When it was committed (epoch ms, real time). */
  at: number;
}

export interface OutboxDeps {
  dispatcher: WebhookDispatcher;
  /** Marks a tenant's record field as changed (the replica writes it with the tenant's next commit). */
  touch(tenant: string, field: string): void;
  /** Commits a tenant's changed records now (an empty unit). */
  commit(tenant: string): Promise<unknown>;
  /** Runs once the change that made the job is committed. */
  afterCommit(effect: () => void): void;
  /** Takes a job's lease; false when another process holds it. */
  lease(eventId: string, ms: number): Promise<boolean>;
  /** Pulls every tenant's records (to see jobs other processes left). */
  pull(): Promise<void>;
}

export const OUTBOX_PREFIX = 'w:';
/** A job older than this that is still in the outbox is an orphan. */
const ORPHAN_AFTER_MS = 60_000;
const LEASE_MS = 60_000;
const SWEEP_MS = 10_000;

interface OutboxState {
  deps: OutboxDeps;
  jobs: Map<string, Map<string, OutboxJob>>;
  /** Jobs this process is delivering (fresh or taken over). */
  mine: Set<string>;
  sweep: NodeJS.Timeout | undefined;
}

function jobsOf(o: OutboxState, tenant: string): Map<string, OutboxJob> {
  let map = o.jobs.get(tenant);
  if (!map) o.jobs.set(tenant, (map = new Map<string, OutboxJob>()));
  return map;
}

function deliver(o: OutboxState, job: OutboxJob): void {
  o.mine.add(job.item.eventId);
  o.deps.dispatcher.enqueue(job.item);
}

/** Takes over the jobs other processes left: older than a minute, under a lease. */
async function sweepNow(o: OutboxState): Promise<void> {
  await o.deps.pull();
  const old = Date.now() - ORPHAN_AFTER_MS;
  for (const map of o.jobs.values()) {
    for (const job of map.values()) {
      if (job.at > old || o.mine.has(job.item.eventId)) continue;
      if (await o.deps.lease(job.item.eventId, LEASE_MS)) deliver(o, job);
    }
  }
}

/** Started with the first job this process sees: one that never had any has nothing to look after. */
function startSweeping(o: OutboxState): void {
  if (o.sweep) return;
  o.sweep = setInterval(() => void sweepNow(o).catch(() => undefined), SWEEP_MS);
  o.sweep.unref();
}

export function createOutbox(deps: OutboxDeps) {
  const o: OutboxState = { deps, jobs: new Map(), mine: new Set(), sweep: undefined };
  const { jobs, mine } = o;
  return {
    /** A new delivery: recorded with the change that caused it, sent once that is committed. */
    enqueue(item: WebhookItem): void {
      startSweeping(o);
      const job: OutboxJob = { item, at: Date.now() };
      jobsOf(o, item.tenant).set(item.eventId, job);
      deps.touch(item.tenant, `${OUTBOX_PREFIX}${item.eventId}`);
      deps.afterCommit(() => deliver(o, job));
    },
    /** The dispatcher is done with an item: its record goes. */
    settled(item: WebhookItem): void {
      mine.delete(item.eventId);
      if (jobs.get(item.tenant)?.delete(item.eventId)) {
        deps.touch(item.tenant, `${OUTBOX_PREFIX}${item.eventId}`);
        void deps.commit(item.tenant).catch(() => undefined);
      }
    },
    /** A record's value now ('' when gone). */
    value(tenant: string, eventId: string): string {
      const job = jobs.get(tenant)?.get(eventId);
      return job === undefined ? '' : JSON.stringify(job);
    },
    /** Another process's record (null or '': gone). */
    apply(tenant: string, eventId: string, value: string | null): void {
      if (value === null || value === '') jobs.get(tenant)?.delete(eventId);
      else {
        jobsOf(o, tenant).set(eventId, JSON.parse(value) as OutboxJob);
        startSweeping(o);
      }
    },
    entries(tenant: string): [string, string][] {
      return [...(jobs.get(tenant) ?? [])].map(([id, job]) => [`${OUTBOX_PREFIX}${id}`, JSON.stringify(job)]);
    },
    forget(tenant?: string): void {
      if (tenant === undefined) jobs.clear();
      else jobs.delete(tenant);
    },
    /** A reset drops the tenant's queue (decision 0030), its records too. */
    clear(tenant?: string): void {
      for (const [name, map] of jobs) {
        if (tenant !== undefined && name !== tenant) continue;
        for (const id of map.keys()) deps.touch(name, `${OUTBOX_PREFIX}${id}`);
        map.clear();
      }
    },
    close(): void {
      if (o.sweep) clearInterval(o.sweep);
      o.sweep = undefined;
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;

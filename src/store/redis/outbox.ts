/** The webhook queue with a shared store: records committed with their cause, orphans taken under a lease (docs/consistency.md). */
import type { WebhookDispatcher, WebhookItem } from '../../infra/webhooks.js';
import { idOf } from '../webhook-gate.js';
import { OUTBOX } from './records.js';
import type { Replica } from './replica.js';
import { entryOf, newMap } from '../memory-store.js';

interface OutboxJob {
  item: WebhookItem;
  /** When it was committed (epoch ms, real time). */
  at: number;
}

/** A job older than this that is still in the outbox is an orphan. */
const ORPHAN_AFTER_MS = 60_000;
const LEASE_MS = 60_000;
const SWEEP_MS = 10_000;

/** `lease` takes a job's lease (false: another process holds it); `mine`: the jobs this process delivers. */
const outboxState = (dispatcher: WebhookDispatcher, replica: Replica, lease: (eventId: string, ms: number) => Promise<boolean>) => ({
  dispatcher,
  replica,
  lease,
  jobs: new Map<string, Map<string, OutboxJob>>(),
  mine: new Set<string>(),
  sweep: undefined as NodeJS.Timeout | undefined,
});

type OutboxState = ReturnType<typeof outboxState>;

function deliver(o: OutboxState, job: OutboxJob): void {
  o.mine.add(idOf(job.item));
  o.dispatcher.enqueue(job.item);
}

/** Takes over the jobs other processes left: older than a minute, under a lease. */
async function sweepNow(o: OutboxState): Promise<void> {
  await o.replica.start();
  const old = Date.now() - ORPHAN_AFTER_MS;
  for (const map of o.jobs.values()) {
    for (const job of map.values()) {
      if (job.at > old || job.item.hold !== undefined || o.mine.has(idOf(job.item))) continue;
      if (await o.lease(idOf(job.item), LEASE_MS)) deliver(o, job);
    }
  }
}

/** Started with the first job this process sees: one that never had any has nothing to look after. */
function startSweeping(o: OutboxState): void {
  if (o.sweep) return;
  o.sweep = setInterval(() => void sweepNow(o).catch(() => undefined), SWEEP_MS);
  o.sweep.unref();
}

/** Records a delivery: held (since it was first held), or to be sent (an orphan a minute after its release). */
function record(o: OutboxState, item: WebhookItem): OutboxJob {
  startSweeping(o);
  const map = entryOf(o.jobs, item.tenant, newMap<string, OutboxJob>);
  const job: OutboxJob = { item, at: (item.hold === undefined ? undefined : map.get(idOf(item))?.at) ?? Date.now() };
  map.set(idOf(item), job);
  o.replica.touch(item.tenant, OUTBOX + idOf(item));
  return job;
}

/** The outbox as the gate's held deliveries (webhook-gate.ts): a delivery is sent once recorded and committed; a dropped one is only logged. */
export function createOutbox(dispatcher: WebhookDispatcher, replica: Replica, lease: OutboxState['lease']) {
  const o = outboxState(dispatcher, replica, lease);
  const { jobs, mine } = o;
  return {
    held: (tenant: string): WebhookItem[] => [...(jobs.get(tenant)?.values() ?? [])].filter((job) => job.item.hold !== undefined).map((job) => job.item),
    keep: (item: WebhookItem): void => void record(o, item),
    deliver(item: WebhookItem): void {
      if (item.drop === true) {
        replica.afterCommit(() => dispatcher.enqueue(item));
        return;
      }
      const job = record(o, item);
      replica.afterCommit(() => deliver(o, job));
    },
    show: (item: WebhookItem): void => replica.afterCommit(() => dispatcher.hold(item)),
    /** A reset drops the tenant's queue (decision 0030), its records too. */
    clear(tenant?: string): void {
      for (const [name, map] of jobs) {
        if (tenant !== undefined && name !== tenant) continue;
        for (const id of map.keys()) replica.touch(name, OUTBOX + id);
        map.clear();
      }
    },
    /** The dispatcher is done with an item: its record goes. */
    settled(item: WebhookItem): void {
      mine.delete(idOf(item));
      if (jobs.get(item.tenant)?.delete(idOf(item))) {
        replica.touch(item.tenant, OUTBOX + idOf(item));
        // Committed now: an empty unit.
        void replica.run(item.tenant, () => undefined).catch(() => undefined);
      }
    },
    /** As a kind of the tenant's records (records.ts). */
    read(tenant: string, id: string): string {
      const job = jobs.get(tenant)?.get(id);
      return job === undefined ? '' : JSON.stringify(job);
    },
    apply(tenant: string, id: string, text: string): void {
      if (text === '') jobs.get(tenant)?.delete(id);
      else {
        entryOf(jobs, tenant, newMap<string, OutboxJob>).set(id, JSON.parse(text) as OutboxJob);
        startSweeping(o);
      }
    },
    ids: (tenant: string): Iterable<string> => jobs.get(tenant)?.keys() ?? [],
    forget: (tenant: string): boolean => jobs.delete(tenant),
    close(): void {
      if (o.sweep) clearInterval(o.sweep);
      o.sweep = undefined;
    },
  };
}

/** One process's replica of a shared store (decisions 0039, 0040): API units in lanes, control calls under the lock. */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError, type CommitReply, type Versions, type Writes } from './link.js';
import { COMPARED } from './records.js';
import { EpochChanged, collect, createState, distrust, guarded, laneOf, locked, pull, pullAll, remember, type Lane, type Outcome, type ReplicaDeps, type ReplicaState } from './sync.js';

const MAX_ATTEMPTS = 200;
/** Read-only checks of one tenant in flight at once (decision 0040). */
const MAX_CHECKS = 4;

function runAll(batch: Lane['queue']): Outcome<unknown>[] {
  return batch.map((job) => {
    try {
      return { ok: true, value: job.work() };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

/** Lets go of one hold on the tenant's memory; the last one wakes the batches waiting in commitBatch(). */
function unhold(lane: Lane): void {
  if (--lane.holds === 0) for (const resolve of lane.waiters.splice(0)) resolve();
}

async function holding<T>(lane: Lane, body: () => Promise<T>): Promise<T> {
  lane.holds++;
  try {
    return await body();
  } finally {
    unhold(lane);
  }
}

/** Sends a batch's commit (a read-only batch's: its check); Redis unreachable: the tenant is distrusted. */
async function send(s: ReplicaState, tenant: string, lane: Lane, expected: Versions, change: { writes: Writes; global: Writes | undefined; writing: boolean }): Promise<CommitReply> {
  try {
    return await s.deps.link.commit(tenant, expected, '', s.epoch ?? '', change.writes, change.global);
  } catch (err) {
    distrust(s, tenant);
    throw err;
  } finally {
    if (!change.writing) lane.checks--;
    s.inflight--;
    if (s.inflight === 0) s.idle?.();
  }
}

/** Runs a batch once and commits it; false when it must run again. A batch that wrote holds the lane until then (decision 0040). */
async function tryBatch(s: ReplicaState, tenant: string, lane: Lane, batch: Lane['queue'], attempt: number): Promise<boolean> {
  const expected = { version: lane.version ?? 0, globalVersion: s.globalVersion };
  s.effects = [];
  const outcomes = runAll(batch);
  const done = s.effects;
  s.effects = undefined;
  const { writes, global } = collect(s, tenant);
  const writing = writes.size > 0 || global !== undefined;
  if (writing) lane.holds++;
  else lane.checks++;
  s.inflight++;
  try {
    const reply = await send(s, tenant, lane, expected, { writes, global, writing });
    if (reply.kind === 'ok') {
      if (writing) remember(s, tenant, writes, global, reply);
      batch.forEach((job, i) => job.resolve(outcomes[i] as Outcome<unknown>));
      for (const effect of done) effect();
      return true;
    }
    if (reply.kind === 'epoch') throw new EpochChanged();
    if (attempt >= MAX_ATTEMPTS) throw new StoreUnavailableError('too many conflicting writes');
    if (reply.kind === 'busy') await sleep(1 + Math.min(attempt, 10));
    if (global) for (const field of global.keys()) s.knownGlobal.delete(field);
    const extra = [...writes.keys()].filter((f) => !COMPARED.includes(f)).concat(COMPARED);
    await holding(lane, () => pull(s, tenant, extra));
    return false;
  } finally {
    if (writing) unhold(lane);
  }
}

/** Runs a batch until it commits, after any control call, on a loaded memory of the tenant. */
async function commitBatch(s: ReplicaState, tenant: string, lane: Lane, batch: Lane['queue']): Promise<void> {
  await guarded(s, async () => {
    for (let attempt = 0; ; attempt++) {
      while (s.controlling) await s.controlling;
      // Nothing may hold the tenant's memory: no pull in flight, no uncommitted writes.
      while (lane.holds > 0) await new Promise<void>((resolve) => lane.waiters.push(resolve));
      if (lane.version === undefined || s.globalVersion < 0) {
        await holding(lane, () => pull(s, tenant));
        continue;
      }
      if (s.controlling || lane.holds > 0) continue;
      if (await tryBatch(s, tenant, lane, batch, attempt)) return;
    }
  });
}

function pump(s: ReplicaState, tenant: string, lane: Lane): void {
  if (lane.queue.length === 0 || lane.holds > 0 || lane.checks >= MAX_CHECKS) return;
  const batch = lane.queue.splice(0);
  // The run and its commit are synchronous up to the send: a read-only batch's check is in flight on return.
  void commitBatch(s, tenant, lane, batch)
    .catch((err: unknown) => {
      for (const job of batch) job.reject(err);
    })
    .finally(() => pump(s, tenant, lane));
}

function run<T>(s: ReplicaState, tenant: string, work: () => T): Promise<Outcome<T>> {
  const open = laneOf(s, tenant);
  const promise = new Promise<Outcome<T>>((resolve, reject) => {
    open.queue.push({ work, resolve: resolve as (o: Outcome<unknown>) => void, reject });
  });
  if (!open.scheduled) {
    // Requests parsed in this turn of the event loop join one batch.
    open.scheduled = true;
    setImmediate(() => {
      open.scheduled = false;
      pump(s, tenant, open);
    });
  }
  return promise;
}

function controlLocked<T>(s: ReplicaState, work: () => Promise<T>): Promise<T> {
  const { link } = s.deps;
  return locked(link, async (token) => {
    try {
      await pullAll(s);
      s.effects = [];
      const result = await work();
      const done = s.effects;
      s.effects = undefined;
      for (const tenant of s.deps.tenants) {
        const { writes, global } = collect(s, tenant);
        if (writes.size === 0 && !global) continue;
        const reply = await link.commit(tenant, '*', token, s.epoch ?? '', writes, global);
        if (reply.kind === 'epoch') throw new EpochChanged();
        remember(s, tenant, writes, global, reply);
      }
      for (const effect of done) effect();
      return result;
    } catch (err) {
      s.effects = undefined;
      if (err instanceof StoreUnavailableError) distrust(s);
      throw err;
    }
  });
}

async function control<T>(s: ReplicaState, work: () => Promise<T>): Promise<T> {
  while (s.controlling) await s.controlling;
  let release: () => void = () => undefined;
  s.controlling = new Promise<void>((resolve) => (release = resolve));
  try {
    // Lanes finish the batch they hold; new ones wait for this call.
    if (s.inflight > 0) await new Promise<void>((resolve) => (s.idle = resolve));
    s.idle = undefined;
    return await guarded(s, () => controlLocked(s, work));
  } finally {
    s.controlling = undefined;
    release();
  }
}

/** Made with the store set; bound to the records (the rest of the simulator) once they exist. */
export function createReplica(deps: Pick<ReplicaDeps, 'link' | 'tenants'>) {
  const s = createState(deps);
  return {
    /** The memory stores' reports until now were the configured start, not changes (decision 0066). */
    bind(bound: Pick<ReplicaDeps, 'records' | 'restart'>): void {
      Object.assign(s.deps, bound);
      s.applying = false;
    },
    touch(tenant: string, field: string): void {
      if (!s.applying) laneOf(s, tenant).dirty.add(field);
    },
    run: <T>(tenant: string, work: () => T): Promise<Outcome<T>> => run(s, tenant, work),
    control: <T>(work: () => Promise<T>): Promise<T> => control(s, work),
    /** Joins the store (seeds it, or adopts its state); later, brings every tenant up to date. */
    start: () => guarded(s, () => pullAll(s)),
    /** Runs a side effect once what caused it is committed; at once outside a unit. */
    afterCommit(effect: () => void): void {
      if (s.effects) s.effects.push(effect);
      else effect();
    },
    close: () => deps.link.close(),
  };
}

export type Replica = ReturnType<typeof createReplica>;

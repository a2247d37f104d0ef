/**
 * One process's replica of a shared store (decision 0039). The simulator keeps running on its memory stores,
 * unchanged and synchronous; this replica makes that memory a cache of the records in Redis:
 *
 * - An API request runs as a unit for its tenant. Units of one tenant queue in a lane; whatever queued while
 *   a commit was in flight runs together (group commit). The units run against memory, then the records they
 *   changed go to Redis in one Lua script that checks the tenant's and the shared version. Stale (another
 *   process wrote first): Redis's values are put back over what the units changed, the changes since are
 *   pulled, and the units run again. Nothing is answered before its commit.
 * - A control call takes the store's lock (API commits wait while it is held), pulls every tenant, runs,
 *   and writes what changed. A control read pulls first.
 * - Redis unreachable: the unit fails with StoreUnavailableError (503), and the tenant is loaded again whole
 *   on its next use, so nothing half-written stays in memory.
 */
import { randomUUID } from 'node:crypto';
import type { RecordObserver } from '../memory-store.js';
import { StoreUnavailableError, type RedisLink, type Writes } from './link.js';
import type { Records } from './records.js';

export interface ReplicaDeps {
  link: RedisLink;
  records: Records;
  /** Every tenant (the configured credentials). */
  tenants: readonly string[];
  /** Puts this process's memory back to the configured start (fixtures, scenarios' tokens). */
  restart(): void;
  /** Says that Redis lost the state this memory came from: called once per loss, right after `restart` (decision 0041). */
  lost?(): void;
  /** Pulls what else a control read shows (the other processes' journal entries). */
  onRead?: () => Promise<void>;
  onClose?: () => void;
}

/** What a unit came to: its value or what it threw (thrown again by the caller after the commit). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface Replica {
  readonly tokenObserver: RecordObserver;
  readonly paymentObserver: RecordObserver;
  /** Runs an API unit for a tenant and commits what it changed. */
  run<T>(tenant: string, work: () => T): Promise<Outcome<T>>;
  /** Runs a control call under the store's lock, every tenant pulled first and written after. */
  control<T>(work: () => Promise<T>): Promise<T>;
  /** Pulls every tenant (before a control read). */
  read(): Promise<void>;
  /** Joins the store (seeds it, or adopts its state) and pulls every tenant. */
  start(): Promise<void>;
  /** Runs a side effect (a webhook) once what caused it is committed; at once outside a unit. */
  afterCommit(effect: () => void): void;
  /** Marks another record field of a tenant as changed (the webhook outbox's). */
  touch(tenant: string, field: string): void;
  status(): Promise<{ up: boolean }>;
  close(): Promise<void>;
}

interface Job {
  work: () => unknown;
  resolve: (outcome: Outcome<unknown>) => void;
  reject: (err: unknown) => void;
}

interface Lane {
  queue: Job[];
  /** A batch is to be taken on the next turn of the event loop. */
  scheduled: boolean;
  /** Read-only batches whose version check is in flight. */
  checks: number;
  /**
   * Holds on the tenant's memory: a pull in flight, or a batch's writes not yet committed or rolled back.
   * No batch runs while one is held.
   */
  holds: number;
  waiters: (() => void)[];
}

const LOCK_TTL_MS = 5000;
/** A control call that cannot take the lock in this time answers 503 (the outage budget is 2 s). */
const LOCK_WAIT_MS = 1800;
const MAX_ATTEMPTS = 200;
/**
 * Read-only batches of one tenant whose version check may be in flight at once (decision 0040). Redis runs a
 * connection's commands in order, so each check answers for the memory its batch read.
 */
const MAX_CHECKS = 4;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createReplica(deps: ReplicaDeps): Replica {
  const { link, records } = deps;
  let epoch: string | undefined;
  let starting: Promise<void> | undefined;
  /** Tenant versions this memory holds; absent: not loaded. */
  const versions = new Map<string, number>();
  let globalVersion = -1;
  /** Field values this memory last wrote or read, for the fields compared rather than tracked. */
  const known = new Map<string, Map<string, string>>();
  const knownGlobal = new Map<string, string>();
  const dirtyTokens = new Map<string, Set<string>>();
  const dirtyPayments = new Map<string, Set<string>>();
  const dirtyFields = new Map<string, Set<string>>();
  let applying = false;
  let effects: (() => void)[] | undefined;
  const lanes = new Map<string, Lane>();
  let inflight = 0;
  /** While a control call runs here, lanes wait for it. */
  let controlling: Promise<void> | undefined;
  let idle: (() => void) | undefined;

  const observer = (dirty: Map<string, Set<string>>): RecordObserver => ({
    changed(tenant, id) {
      if (applying) return;
      let set = dirty.get(tenant);
      if (!set) dirty.set(tenant, (set = new Set()));
      set.add(id);
    },
  });

  function knownOf(tenant: string): Map<string, string> {
    let map = known.get(tenant);
    if (!map) known.set(tenant, (map = new Map<string, string>()));
    return map;
  }

  /** Takes what changed in a tenant's memory since its last commit: the writes, and the fields they name. */
  function collect(tenant: string): { writes: Writes; global: Writes | undefined } {
    const writes: Writes = new Map();
    const tokens = dirtyTokens.get(tenant);
    if (tokens) {
      dirtyTokens.delete(tenant);
      for (const id of tokens) writes.set(records.tokenField(id), records.token(tenant, id));
    }
    const payments = dirtyPayments.get(tenant);
    if (payments) {
      dirtyPayments.delete(tenant);
      for (const id of payments) writes.set(records.paymentField(id), records.payment(tenant, id));
    }
    const fields = dirtyFields.get(tenant);
    if (fields) {
      dirtyFields.delete(tenant);
      for (const field of fields) writes.set(field, records.value(tenant, field));
    }
    const last = knownOf(tenant);
    const compared: [string, string][] = [
      ['s', records.scenarioSet(tenant)],
      ['c', records.clock(tenant)],
      ['m', records.meta(tenant)],
    ];
    for (const [field, value] of compared) if ((last.get(field) ?? '') !== value) writes.set(field, value);
    let global: Writes | undefined;
    for (const [field, value] of [
      ['scn', records.scenarioSet(undefined)],
      ['clock', records.sharedClock()],
    ] as const) {
      if ((knownGlobal.get(field) ?? '') !== value) (global ??= new Map()).set(field, value);
    }
    return { writes, global };
  }

  function remember(tenant: string, writes: Writes, global: Writes | undefined): void {
    const last = knownOf(tenant);
    for (const field of ['s', 'c', 'm']) if (writes.has(field)) last.set(field, writes.get(field) as string);
    if (global) for (const [field, value] of global) knownGlobal.set(field, value);
  }

  function applyGlobal(map: Map<string, string>): void {
    if (epoch !== undefined && map.get('epoch') !== epoch) throw new EpochChanged();
    // The scenario set first: replacing it starts its counts again, which the tenants' `m` then restore.
    for (const field of ['scn', 'clock']) {
      const value = map.get(field) ?? '';
      if ((knownGlobal.get(field) ?? '') !== value) {
        if (value !== '') records.applyGlobal(field, value);
        knownGlobal.set(field, value);
      }
    }
  }

  function applyFields(tenant: string, fields: Map<string, string | null>): void {
    const last = knownOf(tenant);
    const order = [...fields.keys()].sort((a, b) => rank(a) - rank(b));
    for (const field of order) {
      if (field === '_v') continue;
      const value = fields.get(field) ?? null;
      records.apply(tenant, field, value);
      if (field === 's' || field === 'c' || field === 'm') last.set(field, value ?? '');
    }
  }

  /** Brings a tenant's memory to Redis's version, putting Redis's values over `extra` fields too. */
  async function pull(tenant: string, extra: Iterable<string> = []): Promise<void> {
    const loaded = versions.has(tenant);
    const reply = await link.pull(tenant, { version: versions.get(tenant) ?? -1, globalVersion }, extra);
    if (epoch !== undefined && reply.epoch !== epoch) throw new EpochChanged();
    applying = true;
    try {
      if (reply.global) applyGlobal(reply.global);
      if (!loaded) records.forget(tenant);
      applyFields(tenant, reply.fields);
    } finally {
      applying = false;
    }
    versions.set(tenant, reply.version);
    globalVersion = reply.globalVersion;
  }

  /** Redis could not be reached mid-change: this memory of the tenant is not to be trusted. */
  function distrust(tenant?: string): void {
    for (const name of tenant === undefined ? deps.tenants : [tenant]) {
      versions.delete(name);
      known.delete(name);
      dirtyTokens.delete(name);
      dirtyPayments.delete(name);
      dirtyFields.delete(name);
    }
    globalVersion = -1;
    knownGlobal.clear();
  }

  /** Seeds an empty store with this memory, or adopts the store's state; again after Redis lost it. */
  function started(): Promise<void> {
    starting ??= (async () => {
      const token = randomUUID();
      await lock(token);
      try {
        const mine = randomUUID();
        if (await link.seed(mine)) {
          epoch = mine;
          const global: Writes = new Map([
            ['scn', records.scenarioSet(undefined)],
            ['clock', records.sharedClock()],
          ]);
          for (const tenant of deps.tenants) {
            const writes = records.all(tenant);
            const reply = await link.commit(tenant, '*', token, mine, writes, global.size > 0 ? new Map(global) : undefined);
            remember(tenant, writes, global);
            global.clear();
            versions.set(tenant, reply.version);
            globalVersion = reply.globalVersion;
          }
          dirtyTokens.clear();
          dirtyPayments.clear();
          dirtyFields.clear();
        } else {
          const global = await link.globalRecords();
          epoch = global.get('epoch');
          distrust();
          for (const tenant of deps.tenants) await pull(tenant);
        }
      } finally {
        await link.unlock(token).catch(() => undefined);
      }
    })().catch((err: unknown) => {
      starting = undefined;
      epoch = undefined;
      throw err;
    });
    return starting;
  }

  async function lock(token: string): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!(await link.lock(token, LOCK_TTL_MS))) {
      if (Date.now() > deadline) throw new StoreUnavailableError('the store stayed locked by another process');
      await sleep(2);
    }
  }

  /** Runs `body`, starting over from a fresh start when Redis turns out to have lost its state. */
  async function guarded<T>(body: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      await started();
      const joined = epoch;
      try {
        return await body();
      } catch (err) {
        if (!(err instanceof EpochChanged) || i > 2) throw err;
        // Another unit of this process found the loss first and started over: join that start, not a second one.
        if (epoch !== joined) continue;
        // Redis lost its state (a restart without persistence): start over, as a fresh simulator would.
        starting = undefined;
        epoch = undefined;
        distrust();
        applying = true;
        try {
          deps.restart();
        } finally {
          applying = false;
        }
        deps.lost?.();
      }
    }
  }

  function runAll(batch: readonly Job[]): Outcome<unknown>[] {
    return batch.map((job) => {
      try {
        return { ok: true, value: job.work() };
      } catch (error) {
        return { ok: false, error };
      }
    });
  }

  /** Waits until nothing holds the tenant's memory (no pull in flight, no uncommitted writes). */
  async function free(lane: Lane): Promise<void> {
    while (lane.holds > 0) await new Promise<void>((resolve) => lane.waiters.push(resolve));
  }

  /** Lets go of one hold on the tenant's memory; the last one wakes the batches waiting in free(). */
  function unhold(lane: Lane): void {
    if (--lane.holds === 0) for (const resolve of lane.waiters.splice(0)) resolve();
  }

  /** Runs `body` holding the tenant's memory: no batch of the tenant runs meanwhile. */
  async function holding<T>(lane: Lane, body: () => Promise<T>): Promise<T> {
    lane.holds++;
    try {
      return await body();
    } finally {
      unhold(lane);
    }
  }

  /**
   * Runs a batch and commits what it changed. A read-only batch's check leaves the lane open to the next
   * batch (up to MAX_CHECKS in flight); a batch that wrote holds the lane until its commit answers, and, when
   * stale, until Redis's values are back over what it wrote.
   */
  async function commitBatch(tenant: string, lane: Lane, batch: Job[]): Promise<void> {
    await guarded(async () => {
      for (let attempt = 0; ; attempt++) {
        while (controlling) await controlling;
        if (lane.holds > 0) await free(lane);
        if (!versions.has(tenant) || globalVersion < 0) {
          await holding(lane, () => pull(tenant));
          continue;
        }
        if (controlling || lane.holds > 0) continue;
        const expected = { version: versions.get(tenant) ?? 0, globalVersion };
        effects = [];
        const outcomes = runAll(batch);
        const done = effects;
        effects = undefined;
        const { writes, global } = collect(tenant);
        const writing = writes.size > 0 || global !== undefined;
        if (writing) lane.holds++;
        else lane.checks++;
        inflight++;
        try {
          let reply;
          try {
            reply = await link.commit(tenant, expected, '', epoch ?? '', writes, global);
          } catch (err) {
            distrust(tenant);
            throw err;
          } finally {
            if (!writing) lane.checks--;
            inflight--;
            if (inflight === 0) idle?.();
          }
          if (reply.kind === 'ok') {
            if (writing) {
              remember(tenant, writes, global);
              versions.set(tenant, reply.version);
              globalVersion = reply.globalVersion;
            }
            batch.forEach((job, i) => job.resolve(outcomes[i] as Outcome<unknown>));
            for (const effect of done) effect();
            return;
          }
          if (reply.kind === 'epoch') throw new EpochChanged();
          if (attempt >= MAX_ATTEMPTS) throw new StoreUnavailableError('too many conflicting writes');
          if (reply.kind === 'busy') await sleep(1 + Math.min(attempt, 10));
          // Redis's values back over what this attempt changed, the others' changes in, and again.
          if (global) for (const field of global.keys()) knownGlobal.delete(field);
          const extra = [...writes.keys()].filter((f) => f !== 's' && f !== 'c' && f !== 'm').concat(['s', 'c', 'm']);
          await holding(lane, () => pull(tenant, extra));
        } finally {
          if (writing) unhold(lane);
        }
      }
    });
  }

  /** Takes the queued jobs as one batch when the lane is open to one. */
  function pump(tenant: string, lane: Lane): void {
    if (lane.queue.length === 0 || lane.holds > 0 || lane.checks >= MAX_CHECKS) return;
    const batch = lane.queue.splice(0);
    void commitBatch(tenant, lane, batch)
      .catch((err: unknown) => {
        for (const job of batch) job.reject(err);
      })
      .finally(() => pump(tenant, lane));
    // A read-only batch's check is in flight now (the run and its commit are synchronous up to the send): the
    // lane may take the next batch as soon as one queues.
  }

  return {
    tokenObserver: observer(dirtyTokens),
    paymentObserver: observer(dirtyPayments),
    touch: (tenant, field) => observer(dirtyFields).changed(tenant, field),

    run<T>(tenant: string, work: () => T): Promise<Outcome<T>> {
      let lane = lanes.get(tenant);
      if (!lane) lanes.set(tenant, (lane = { queue: [], scheduled: false, checks: 0, holds: 0, waiters: [] }));
      const promise = new Promise<Outcome<T>>((resolve, reject) => {
        (lane).queue.push({ work, resolve: resolve as (o: Outcome<unknown>) => void, reject });
      });
      if (!lane.scheduled) {
        // Taken on the next turn of the event loop: requests parsed in this turn join one batch.
        lane.scheduled = true;
        const open = lane;
        setImmediate(() => {
          open.scheduled = false;
          pump(tenant, open);
        });
      }
      return promise;
    },

    async control<T>(work: () => Promise<T>): Promise<T> {
      while (controlling) await controlling;
      let release: () => void = () => undefined;
      controlling = new Promise<void>((resolve) => (release = resolve));
      try {
        // Lanes finish the batch they hold; new ones wait for this call.
        if (inflight > 0) await new Promise<void>((resolve) => (idle = resolve));
        idle = undefined;
        return await guarded(async () => {
          const token = randomUUID();
          await lock(token);
          try {
            for (const tenant of deps.tenants) await pull(tenant);
            effects = [];
            const result = await work();
            const done = effects;
            effects = undefined;
            let global: Writes | undefined;
            for (const tenant of deps.tenants) {
              const change = collect(tenant);
              global = change.global;
              if (change.writes.size === 0 && !global) continue;
              const reply = await link.commit(tenant, '*', token, epoch ?? '', change.writes, global);
              if (reply.kind === 'epoch') throw new EpochChanged();
              remember(tenant, change.writes, global);
              versions.set(tenant, reply.version);
              globalVersion = reply.globalVersion;
            }
            for (const effect of done) effect();
            return result;
          } catch (err) {
            effects = undefined;
            if (err instanceof StoreUnavailableError) distrust();
            throw err;
          } finally {
            await link.unlock(token).catch(() => undefined);
          }
        });
      } finally {
        controlling = undefined;
        release();
      }
    },

    read: () =>
      guarded(async () => {
        for (const tenant of deps.tenants) await pull(tenant);
        await deps.onRead?.();
      }),

    start: () =>
      guarded(async () => {
        for (const tenant of deps.tenants) await pull(tenant);
      }),

    afterCommit(effect) {
      if (effects) effects.push(effect);
      else effect();
    },

    async status() {
      return { up: await link.ping() };
    },

    close() {
      deps.onClose?.();
      return link.close();
    },
  };
}

/** The store's epoch is not the one this memory came from: Redis lost its state, or was seeded again. */
class EpochChanged extends Error {}

const rank = (field: string): number => (field === 's' ? 0 : field === 'm' ? 2 : 1);

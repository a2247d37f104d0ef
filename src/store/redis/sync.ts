/** What a replica knows of Redis (decision 0039), and how it pulls, collects, seeds, and starts over (decision 0041). */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError, type RedisLink, type Versions, type Writes } from './link.js';
import { COMPARED, type Records } from './records.js';
import { entryOf } from '../memory-store.js';

export interface ReplicaDeps {
  link: RedisLink;
  tenants: readonly string[];
  /** Given by the replica's bind() before any unit runs, with `restart` (StoreParts', and the report of the loss: decision 0041). */
  records: Records;
  restart(): void;
}

const LOCK_TTL_MS = 5000;
/** A control call that cannot take the lock in this time answers 503 (the outage budget is 2 s). */
const LOCK_WAIT_MS = 1800;

/** A tenant as one replica holds it: what it knows of the tenant's records in Redis, what changed here, and its lane of API units. */
export interface Lane {
  /** The version this memory holds; undefined: not loaded. */
  version: number | undefined;
  /** Field values this memory last wrote or read, for the fields compared rather than tracked. */
  known: Map<string, string>;
  /** The record fields its memory changed since its last commit. */
  dirty: Set<string>;
  queue: { work: () => unknown; resolve: (outcome: Outcome<unknown>) => void; reject: (err: unknown) => void }[];
  /** A batch is to be taken on the next turn of the event loop. */
  scheduled: boolean;
  /** Read-only batches whose version check is in flight. */
  checks: number;
  /** Holds on the tenant's memory (a pull in flight, a batch's writes not yet committed or rolled back): no batch runs meanwhile. */
  holds: number;
  waiters: (() => void)[];
}

/** What a unit came to: its value or what it threw (thrown again by the caller after the commit). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const newLane = (): Lane => ({ version: undefined, known: new Map(), dirty: new Set(), queue: [], scheduled: false, checks: 0, holds: 0, waiters: [] });

export function createState(deps: Pick<ReplicaDeps, 'link' | 'tenants'>) {
  return {
    deps: deps as ReplicaDeps,
    epoch: undefined as string | undefined,
    starting: undefined as Promise<void> | undefined,
    lanes: new Map<string, Lane>(),
    globalVersion: -1,
    knownGlobal: new Map<string, string>(),
    /** Redis's values (or, until bound, the configured start) are being put into memory: not changes to commit. */
    applying: true,
    /** Side effects of the unit running now, run once it is committed. */
    effects: undefined as (() => void)[] | undefined,
    /** Batches whose commit is in flight. */
    inflight: 0,
    /** While a control call runs here, lanes wait for it. */
    controlling: undefined as Promise<void> | undefined,
    idle: undefined as (() => void) | undefined,
  };
}

export type ReplicaState = ReturnType<typeof createState>;

export const laneOf = (s: ReplicaState, tenant: string): Lane => entryOf(s.lanes, tenant, newLane);

/** What changed in a tenant's memory since its last commit. */
export function collect(s: ReplicaState, tenant: string): { writes: Writes; global: Writes | undefined } {
  const { records } = s.deps;
  const { dirty, known } = laneOf(s, tenant);
  const writes: Writes = new Map();
  for (const field of dirty) writes.set(field, records.value(tenant, field));
  dirty.clear();
  for (const field of COMPARED) {
    const value = records.value(tenant, field);
    if ((known.get(field) ?? '') !== value) writes.set(field, value);
  }
  let global: Writes | undefined;
  for (const [field, record] of records.global) {
    const value = record.read();
    if ((s.knownGlobal.get(field) ?? '') !== value) (global ??= new Map()).set(field, value);
  }
  return { writes, global };
}

/** Notes what a commit wrote as what Redis holds. */
export function remember(s: ReplicaState, tenant: string, writes: Writes, global: Writes | undefined, reply: Versions): void {
  const lane = laneOf(s, tenant);
  for (const field of COMPARED) if (writes.has(field)) lane.known.set(field, writes.get(field) as string);
  if (global) for (const [field, value] of global) s.knownGlobal.set(field, value);
  lane.version = reply.version;
  s.globalVersion = reply.globalVersion;
}

/** Brings a tenant's memory to Redis's version, putting Redis's values over `extra` fields too. */
export async function pull(s: ReplicaState, tenant: string, extra: Iterable<string> = []): Promise<void> {
  const lane = laneOf(s, tenant);
  const loaded = lane.version !== undefined;
  const reply = await s.deps.link.pull(tenant, { version: lane.version ?? -1, globalVersion: s.globalVersion }, extra);
  if (s.epoch !== undefined && reply.epoch !== s.epoch) throw new EpochChanged();
  const { records } = s.deps;
  s.applying = true;
  try {
    for (const [field, record] of reply.global ? records.global : []) {
      const value = reply.global?.get(field) ?? '';
      if ((s.knownGlobal.get(field) ?? '') === value) continue;
      if (value !== '') record.apply(value);
      s.knownGlobal.set(field, value);
    }
    if (!loaded) records.forget(tenant);
    for (const field of [...reply.fields.keys()].sort((a, b) => rank(a) - rank(b))) {
      if (field === '_v') continue;
      const value = reply.fields.get(field) ?? null;
      records.apply(tenant, field, value);
      if (COMPARED.includes(field)) lane.known.set(field, value ?? '');
    }
  } finally {
    s.applying = false;
  }
  lane.version = reply.version;
  s.globalVersion = reply.globalVersion;
}

export async function pullAll(s: ReplicaState): Promise<void> {
  for (const tenant of s.deps.tenants) await pull(s, tenant);
}

/** Redis could not be reached mid-change: this memory of the tenant (or of all) is not to be trusted. */
export function distrust(s: ReplicaState, tenant?: string): void {
  for (const name of tenant === undefined ? s.deps.tenants : [tenant]) {
    const lane = laneOf(s, name);
    lane.version = undefined;
    lane.known.clear();
    lane.dirty.clear();
  }
  s.globalVersion = -1;
  s.knownGlobal.clear();
}

/** Runs `body` holding the store's lock (its token given); a lock not taken within LOCK_WAIT_MS is a 503. */
export async function locked<T>(link: RedisLink, body: (token: string) => Promise<T>): Promise<T> {
  const token = randomUUID();
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!(await link.lock(token, LOCK_TTL_MS))) {
    if (Date.now() > deadline) throw new StoreUnavailableError('the store stayed locked by another process');
    await sleep(2);
  }
  try {
    return await body(token);
  } finally {
    await link.unlock(token).catch(() => undefined);
  }
}

/** Writes this memory as the store's first state, under the lock `token`, in the new epoch `mine`. */
async function seed(s: ReplicaState, token: string, mine: string): Promise<void> {
  const { link, records } = s.deps;
  s.epoch = mine;
  const global: Writes = new Map([...records.global].map(([field, record]) => [field, record.read()]));
  for (const tenant of s.deps.tenants) {
    const writes = records.all(tenant);
    const reply = await link.commit(tenant, '*', token, mine, writes, global.size > 0 ? new Map(global) : undefined);
    remember(s, tenant, writes, global, reply);
    global.clear();
  }
  for (const lane of s.lanes.values()) lane.dirty.clear();
}

/** Seeds an empty store with this memory, or adopts the store's state; again after Redis lost it. */
function started(s: ReplicaState): Promise<void> {
  const { link } = s.deps;
  s.starting ??= locked(link, async (token) => {
    const mine = randomUUID();
    if (await link.seed(mine)) {
      await seed(s, token, mine);
    } else {
      s.epoch = await link.epoch();
      distrust(s);
      await pullAll(s);
    }
  }).catch((err: unknown) => {
    s.starting = undefined;
    s.epoch = undefined;
    throw err;
  });
  return s.starting;
}

/** Redis lost its state (a restart without persistence): start over, as a fresh simulator would. */
function startOver(s: ReplicaState): void {
  s.starting = undefined;
  s.epoch = undefined;
  distrust(s);
  s.applying = true;
  try {
    s.deps.restart();
  } finally {
    s.applying = false;
  }
}

/** Runs `body`, starting over from a fresh start when Redis turns out to have lost its state. */
export async function guarded<T>(s: ReplicaState, body: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    await started(s);
    const joined = s.epoch;
    try {
      return await body();
    } catch (err) {
      if (!(err instanceof EpochChanged) || i > 2) throw err;
      // Another unit of this process found the loss first and started over: join that start, not a second one.
      if (s.epoch === joined) startOver(s);
    }
  }
}

/** The store's epoch is not the one this memory came from: Redis lost its state, or was seeded again. */
export class EpochChanged extends Error {}

const rank = (field: string): number => (field === 's' ? 0 : field === 'm' ? 2 : 1);

/** The Redis side of a shared store (decision 0039): one ioredis connection, its keys and scripts; records.ts gives fields meaning. */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { maskStoreUrl } from '../../config/store.js';
import { SCRIPTS } from './lua.js';

/** Loaded only for a Redis store (about 25 ms of the CLI's first answer). */
const loadRedis = (): typeof Redis => (createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis }).Redis;

/** A store operation that could not reach Redis (down, or slower than the command timeout). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the Redis store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

/** A record change: a value, or '' to delete the field. */
export type Writes = Map<string, string>;

export type Versions = { version: number; globalVersion: number };

export type CommitReply = Versions & { kind: 'ok' | 'stale' | 'busy' | 'epoch' };

/** How long one command may take before the store counts as unavailable. */
const COMMAND_TIMEOUT_MS = 700;
/** How long a command waits for a connection being made. */
const CONNECT_WAIT_MS = 1200;

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

const keys = (prefix: string) => ({
  /** A tenant's records (records.ts, decision 0039) and `_v` its version; `…:chg` scores each field by the version that last wrote it. */
  tenant: (tenant: string): string => `${prefix}t:${tenant}`,
  /** The shared records (records.ts), `_v` its version and `epoch`. */
  global: `${prefix}g`,
  /** Stamps kept beside the hashes' `_v` by the same scripts, for a read-only batch's one-command check. */
  stamp: (tenant: string): string => `${prefix}v:${tenant}`,
  globalStamp: `${prefix}gv`,
  lock: `${prefix}lock`,
  tenants: `${prefix}tenants`,
  /** A capped stream of entries, each tagged with the process that wrote it (`j0`: unauthenticated requests). */
  journal: (tenant: string | null): string => (tenant === null ? `${prefix}j0` : `${prefix}j:${tenant}`),
  /** When each process last said it was alive; when the journal was last wanted; a webhook job's lease. */
  procs: `${prefix}procs`,
  journalWanted: `${prefix}jwant`,
  lease: (eventId: string): string => `${prefix}wl:${eventId}`,
});

function connect(url: string, prefix: string) {
  const client = new (loadRedis())(url, {
    // Fail now, reconnect behind (decision 0039).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 1500,
    retryStrategy: (times) => Math.min(50 * times, 500),
    // Off: one command per batch has nothing to group (decision 0040).
    enableAutoPipelining: false,
    // Connected by the first command: a simulator whose options are refused never opens a connection.
    lazyConnect: true,
  });
  // Errors surface on the commands; the connection's own error events would otherwise crash the process.
  client.on('error', () => undefined);
  // Each script a command of its own (sent by its SHA), named apart from Redis's commands (`append` is one).
  const scripts = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, lua]) => {
      client.defineCommand(`tokenSim_${name}`, { lua });
      const fn = (client as unknown as Record<string, Script>)[`tokenSim_${name}`] as Script;
      return [name, (...args: Parameters<Script>) => fn.call(client, ...args)];
    }),
  ) as Record<keyof typeof SCRIPTS, Script>;
  return { client, url, key: keys(prefix), closed: false, scripts };
}

type Conn = ReturnType<typeof connect>;

/** Waits for the connection (at start, or while it reconnects) for a little while, not for ever. */
function whenReady(conn: Conn): Promise<void> {
  const { client } = conn;
  if (client.status === 'ready') return Promise.resolve();
  if (conn.closed) return Promise.reject(new Error('the connection is closed'));
  if (client.status === 'wait' || client.status === 'end') client.connect().catch(() => undefined);
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', done);
      reject(new Error(`no connection to ${maskStoreUrl(conn.url)} within ${CONNECT_WAIT_MS} ms`));
    }, CONNECT_WAIT_MS);
    client.on('ready', done);
  });
}

/** Runs a command; any failure to reach Redis is a StoreUnavailableError (a 503). */
async function call<T>(conn: Conn, run: () => Promise<T>): Promise<T> {
  try {
    if (conn.client.status !== 'ready') await whenReady(conn);
    return await run();
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}

function pairs(list: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < list.length; i += 2) out.set(list[i] as string, list[i + 1] as string);
  return out;
}

/** `epoch`: the state the writes belong to ('' for any); a store seeded since answers kind 'epoch'. */
async function commit(conn: Conn, tenant: string, expected: Versions | '*', lockToken: string, epoch: string, tenantWrites: Writes, globalWrites?: Writes): Promise<CommitReply> {
  const { key } = conn;
  if (expected !== '*' && lockToken === '' && epoch !== '' && tenantWrites.size === 0 && !globalWrites) {
    // A read-only batch: one MGET (decision 0040); a missing tenant stamp is version 0, a tenant never written.
    const [v, g, lock] = await conn.client.mget(key.stamp(tenant), key.globalStamp, key.lock);
    if (lock !== null) return { kind: 'busy', version: 0, globalVersion: 0 };
    if (g === `${epoch}/${expected.globalVersion}` && (v ?? '0') === String(expected.version)) {
      return { kind: 'ok', version: expected.version, globalVersion: expected.globalVersion };
    }
    // Stale, another epoch, or a store written before the stamps: the script says which.
  }
  const args: string[] = [
    tenant,
    expected === '*' ? '*' : String(expected.version),
    expected === '*' ? '*' : String(expected.globalVersion),
    lockToken,
    String(tenantWrites.size),
    epoch,
  ];
  for (const [f, v] of tenantWrites) args.push(f, v);
  if (globalWrites) for (const [f, v] of globalWrites) args.push(f, v);
  const t = key.tenant(tenant);
  const r = (await conn.scripts.commit(7, t, `${t}:chg`, key.global, key.lock, key.tenants, key.stamp(tenant), key.globalStamp, ...args)) as [string, number, number];
  return { kind: r[0] as CommitReply['kind'], version: Number(r[1]), globalVersion: Number(r[2]) };
}

async function pull(conn: Conn, tenant: string, known: Versions, extraFields: Iterable<string>) {
  const { key } = conn;
  const t = key.tenant(tenant);
  type Reply = [number, number, string[], string[], (string | null)[], string];
  const r = (await conn.scripts.pull(3, t, `${t}:chg`, key.global, known.version, known.globalVersion, ...extraFields)) as Reply;
  const fields = new Map<string, string | null>();
  r[3].forEach((f, i) => fields.set(f, r[4][i] ?? null));
  return {
    version: Number(r[0]),
    globalVersion: Number(r[1]),
    /** The shared records, when their version differs from the one known. */
    global: Number(r[1]) !== known.globalVersion ? pairs(r[2]) : undefined,
    /** Changed or asked-for fields with their values (null: deleted). */
    fields,
    /** The store's epoch ('' when it holds no state). */
    epoch: r[5],
  };
}

export function createRedisLink(url: string, prefix: string) {
  const conn = connect(url, prefix);
  const { client, scripts, key } = conn;
  const via =
    <A extends unknown[], R>(fn: (conn: Conn, ...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      call(conn, () => fn(conn, ...args));
  /** Sets `key` to `holder` for `ms` unless it is set (a lock, a lease); false when another holds it. */
  const take = (key: string, holder: string, ms: number): Promise<boolean> => call(conn, async () => (await client.set(key, holder, 'PX', ms, 'NX')) === 'OK');
  return {
    commit: via(commit),
    pull: via(pull),
    epoch: () => call(conn, async () => (await client.hget(key.global, 'epoch')) ?? undefined),
    lock: (token: string, ttlMs: number) => take(key.lock, token, ttlMs),
    unlock: (token: string) => call(conn, async () => void (await scripts.unlock(1, key.lock, token))),
    /** Marks the store as started by this epoch when it holds no state yet; true when this call did. */
    seed: (epoch: string) => call(conn, async () => (await scripts.seed(2, key.global, key.globalStamp, epoch)) === 1),
    /** Runs `commands` on the connection (the shared journal's: journal.ts); failing to reach Redis is a StoreUnavailableError. */
    run: <T>(commands: (redis: Redis, keys: Conn['key']) => Promise<T>): Promise<T> => call(conn, () => commands(client, key)),
    /** Appends journal entries of a tenant (null: unauthenticated) to its capped stream, fire and forget. */
    appendJournal(tenant: string | null, origin: string, entries: readonly string[], cap: number): void {
      if (client.status !== 'ready' || entries.length === 0) return;
      scripts.append(1, key.journal(tenant), origin, cap, ...entries).catch(() => undefined);
    },
    dropJournal(tenant: string | null): void {
      client.del(key.journal(tenant)).catch(() => undefined);
    },
    /** Takes a webhook job's lease (one process delivers an orphaned job); false when another holds it. */
    lease: (eventId: string, holder: string, ms: number) => take(key.lease(eventId), holder, ms),
    async ping(): Promise<boolean> {
      try {
        await whenReady(conn);
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close(): Promise<void> {
      conn.closed = true;
      if (client.status === 'wait') client.disconnect();
      else await client.quit().catch(() => client.disconnect());
    },
  };
}

export type RedisLink = ReturnType<typeof createRedisLink>;

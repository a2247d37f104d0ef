/**
 * The Redis side of a shared store (decision 0039): one connection (ioredis) and the Lua scripts that change
 * a tenant's records atomically under a version check. It knows keys, versions and fields, not what the
 * records mean: the replica (store/redis/replica.ts) encodes and applies them.
 *
 * Keys, all under the prefix P:
 * - `P t:<tenant>`: the tenant's records (field `_v` is its version; `k:<id>` tokens, `p:<id>` payments,
 *   `m` counters, `c` its own clock, `s` its own scenario set);
 * - `P t:<tenant>:chg`: each record field scored by the version that last wrote it (what others pull);
 * - `P g`: the shared records (`_v` its version, `epoch`, `clock`, `scn` the global scenario set);
 * - `P tenants`: the tenants that have records; `P lock`: the control lock; `P j:<tenant>` (`P j0` for
 *   unauthenticated requests): the journal, a capped stream of entries each tagged with the process that wrote it.
 */
import { createRequire } from 'node:module';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';

/**
 * ioredis is loaded when a Redis store is made, not when the simulator is: the memory store's start does not
 * pay for it (about 25 ms of the CLI's first answer).
 */
const loadRedis = (): new (url: string, options: RedisOptions) => RedisClient =>
  (createRequire(import.meta.url)('ioredis') as { Redis: new (url: string, options: RedisOptions) => RedisClient }).Redis;

/** A store operation that could not reach Redis (down, or slower than the command timeout). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the Redis store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

/** A record change: a value, or '' to delete the field. */
export type Writes = Map<string, string>;

export type CommitReply = { kind: 'ok' | 'stale' | 'busy' | 'epoch'; version: number; globalVersion: number };

export interface PullReply {
  version: number;
  globalVersion: number;
  /** The shared records, when their version differs from the one known. */
  global: Map<string, string> | undefined;
  /** Changed or asked-for fields with their values (null: deleted). */
  fields: Map<string, string | null>;
  /** The store's epoch ('' when it holds no state). */
  epoch: string;
}

const COMMIT = `
local lock = redis.call('GET', KEYS[4])
if lock and lock ~= ARGV[4] then return {'busy', 0, 0} end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[3], 'epoch') ~= ARGV[6] then return {'epoch', 0, 0} end
local v = tonumber(redis.call('HGET', KEYS[1], '_v') or '0')
local g = tonumber(redis.call('HGET', KEYS[3], '_v') or '0')
if ARGV[2] ~= '*' and (v ~= tonumber(ARGV[2]) or g ~= tonumber(ARGV[3])) then return {'stale', v, g} end
local n = tonumber(ARGV[5])
local i = 7
if n > 0 then
  v = v + 1
  redis.call('HSET', KEYS[1], '_v', v)
  redis.call('SET', KEYS[6], v)
  redis.call('SADD', KEYS[5], ARGV[1])
  for j = 1, n do
    local f, val = ARGV[i], ARGV[i + 1]
    i = i + 2
    if val == '' then redis.call('HDEL', KEYS[1], f) else redis.call('HSET', KEYS[1], f, val) end
    redis.call('ZADD', KEYS[2], v, f)
  end
end
if i <= #ARGV then
  g = g + 1
  redis.call('HSET', KEYS[3], '_v', g)
  redis.call('SET', KEYS[7], (redis.call('HGET', KEYS[3], 'epoch') or '') .. '/' .. g)
  while i <= #ARGV do
    local f, val = ARGV[i], ARGV[i + 1]
    i = i + 2
    if val == '' then redis.call('HDEL', KEYS[3], f) else redis.call('HSET', KEYS[3], f, val) end
  end
end
return {'ok', v, g}
`;

const PULL = `
local v = tonumber(redis.call('HGET', KEYS[1], '_v') or '0')
local g = tonumber(redis.call('HGET', KEYS[3], '_v') or '0')
local global = {}
if g ~= tonumber(ARGV[2]) then global = redis.call('HGETALL', KEYS[3]) end
local fields = {}
if v ~= tonumber(ARGV[1]) then
  if v < tonumber(ARGV[1]) then fields = redis.call('HKEYS', KEYS[1])
  else fields = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf') end
end
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
local values = {}
for i = 1, #fields, 4000 do
  local part = redis.call('HMGET', KEYS[1], unpack(fields, i, math.min(i + 3999, #fields)))
  for j = 1, #part do values[#values + 1] = part[j] end
end
return {v, g, global, fields, values, redis.call('HGET', KEYS[3], 'epoch') or ''}
`;

/** Takes the control lock when it is free; returns 1 when taken. */
/** Appends entries (ARGV[3..]) to a capped stream, each tagged with its process (ARGV[1]); one call per batch. */
const APPEND = `
for i = 3, #ARGV do redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'o', ARGV[1], 'e', ARGV[i]) end
return #ARGV - 2
`;

const LOCK = `return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0`;
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** Writes the first state when there is none (the epoch field marks it); returns 1 when it did. */
const SEED = `
if redis.call('HEXISTS', KEYS[1], 'epoch') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'epoch', ARGV[1])
redis.call('SET', KEYS[2], ARGV[1] .. '/' .. redis.call('HINCRBY', KEYS[1], '_v', 1))
return 1
`;

export interface RedisLinkOptions {
  url: string;
  prefix: string;
  /** How long one command may take before the store counts as unavailable (default 700 ms). */
  commandTimeoutMs?: number;
  /** How long a command waits for a connection being made (default 1200 ms). */
  connectWaitMs?: number;
}

/** A Redis URL without its password. */
export function redacted(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

export interface RedisLink {
  readonly prefix: string;
  /** `epoch`: the state the writes belong to ('' for any); a store seeded since answers kind 'epoch'. */
  commit(
    tenant: string,
    expected: { version: number; globalVersion: number } | '*',
    lockToken: string,
    epoch: string,
    tenantWrites: Writes,
    globalWrites?: Writes,
  ): Promise<CommitReply>;
  pull(tenant: string, known: { version: number; globalVersion: number }, extraFields: Iterable<string>): Promise<PullReply>;
  /** The whole tenant hash. */
  tenantRecords(tenant: string): Promise<Map<string, string>>;
  globalRecords(): Promise<Map<string, string>>;
  tenants(): Promise<string[]>;
  lock(token: string, ttlMs: number): Promise<boolean>;
  unlock(token: string): Promise<void>;
  /** Marks the store as started by this epoch when it holds no state yet; true when this call did. */
  seed(epoch: string): Promise<boolean>;
  /** Appends journal entries of a tenant (null: unauthenticated) to its capped stream, fire and forget. */
  appendJournal(tenant: string | null, origin: string, entries: readonly string[], cap: number): void;
  /** A tenant's journal entries after `after` (a stream id; undefined: the newest `cap`), oldest first. */
  journalSince(tenant: string | null, after: string | undefined, cap: number): Promise<{ id: string; origin: string; entry: string }[]>;
  dropJournal(tenant: string | null): void;
  /**
   * Says this process is alive (`name`, now), and whether anyone asked for the journal in the last `windowMs`.
   */
  beat(name: string, windowMs: number): Promise<boolean>;
  /** Takes a webhook job's lease (one process delivers an orphaned job); false when another holds it. */
  lease(eventId: string, holder: string, ms: number): Promise<boolean>;
  /** Asks every process to write its journal entries to Redis for a while. */
  wantJournal(): Promise<void>;
  /** How many other processes said they were alive within `withinMs`. */
  otherProcesses(name: string, withinMs: number): Promise<number>;
  ping(): Promise<boolean>;
  /** Whether the connection is up now. */
  readonly ready: boolean;
  close(): Promise<void>;
}

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

export function createRedisLink(options: RedisLinkOptions): RedisLink {
  const { prefix } = options;
  const Redis = loadRedis();
  const client = new Redis(options.url, {
    // A request must not wait for a server that is not there (decision 0039): fail now, reconnect behind.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 700,
    connectTimeout: 1500,
    retryStrategy: (times) => Math.min(50 * times, 500),
    // Off: a commit is one command per batch, and auto-pipelining wraps every command in a pipeline of its own
    // on the next tick (measured: 35k -> 40k GET/s in one process, decision 0040).
    enableAutoPipelining: false,
    // Connected by the first command: a simulator whose options are refused never opens a connection.
    lazyConnect: true,
  });
  // Errors surface on the commands; the connection's own error events would otherwise crash the process.
  client.on('error', () => undefined);
  const scripts = new Map<string, Script>();
  const define = (name: string, lua: string): Script => {
    client.defineCommand(name, { lua });
    const fn = (client as unknown as Record<string, Script>)[name] as Script;
    const bound: Script = (numKeys, ...args) => fn.call(client, numKeys, ...args);
    scripts.set(name, bound);
    return bound;
  };
  const commitScript = define('tokenSimCommit', COMMIT);
  const pullScript = define('tokenSimPull', PULL);
  const lockScript = define('tokenSimLock', LOCK);
  const unlockScript = define('tokenSimUnlock', UNLOCK);
  const seedScript = define('tokenSimSeed', SEED);
  const appendScript = define('tokenSimAppend', APPEND);

  const tKey = (tenant: string): string => `${prefix}t:${tenant}`;
  const gKey = `${prefix}g`;
  /** Stamps kept beside the hashes' `_v` by the same scripts, for a read-only batch's one-command check. */
  const vKey = (tenant: string): string => `${prefix}v:${tenant}`;
  const gvKey = `${prefix}gv`;
  const lockKey = `${prefix}lock`;
  const tenantsKey = `${prefix}tenants`;
  const jKey = (tenant: string | null): string => (tenant === null ? `${prefix}j0` : `${prefix}j:${tenant}`);

  const waitMs = options.connectWaitMs ?? 1200;
  let closed = false;
  /** Waits for the connection (at start, or while it reconnects) for a little while, not for ever. */
  function whenReady(): Promise<void> {
    if (client.status === 'ready') return Promise.resolve();
    if (closed) return Promise.reject(new Error('the connection is closed'));
    if (client.status === 'wait' || client.status === 'end') client.connect().catch(() => undefined);
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        client.off('ready', done);
        resolve();
      };
      const timer = setTimeout(() => {
        client.off('ready', done);
        reject(new Error(`no connection to ${redacted(options.url)} within ${waitMs} ms`));
      }, waitMs);
      client.on('ready', done);
    });
  }

  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      if (client.status !== 'ready') await whenReady();
      return await run();
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }

  const pairs = (list: unknown): Map<string, string> => {
    const out = new Map<string, string>();
    const a = list as string[];
    for (let i = 0; i + 1 < a.length; i += 2) out.set(a[i] as string, a[i + 1] as string);
    return out;
  };

  return {
    prefix,
    get ready() {
      return client.status === 'ready';
    },
    commit(tenant, expected, lockToken, epoch, tenantWrites, globalWrites) {
      return call(async () => {
        if (expected !== '*' && lockToken === '' && epoch !== '' && tenantWrites.size === 0 && !globalWrites) {
          // A read-only batch: its versions, the shared stamp and the lock in one MGET (decision 0040). A
          // missing tenant stamp reads as version 0, which only a tenant never written has.
          const [v, g, lock] = await client.mget(vKey(tenant), gvKey, lockKey);
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
        const r = (await commitScript(7, tKey(tenant), `${tKey(tenant)}:chg`, gKey, lockKey, tenantsKey, vKey(tenant), gvKey, ...args)) as [
          string,
          number,
          number,
        ];
        return { kind: r[0] as CommitReply['kind'], version: Number(r[1]), globalVersion: Number(r[2]) };
      });
    },
    pull(tenant, known, extraFields) {
      return call(async () => {
        const r = (await pullScript(3, tKey(tenant), `${tKey(tenant)}:chg`, gKey, known.version, known.globalVersion, ...extraFields)) as [
          number,
          number,
          string[],
          string[],
          (string | null)[],
          string,
        ];
        const fields = new Map<string, string | null>();
        r[3].forEach((f, i) => fields.set(f, r[4][i] ?? null));
        return {
          version: Number(r[0]),
          globalVersion: Number(r[1]),
          global: Number(r[1]) !== known.globalVersion ? pairs(r[2]) : undefined,
          fields,
          epoch: r[5],
        };
      });
    },
    tenantRecords: (tenant) => call(async () => new Map(Object.entries(await client.hgetall(tKey(tenant))))),
    globalRecords: () => call(async () => new Map(Object.entries(await client.hgetall(gKey)))),
    tenants: () => call(() => client.smembers(tenantsKey)),
    lock: (token, ttlMs) => call(async () => (await lockScript(1, lockKey, token, ttlMs)) === 1),
    unlock: (token) => call(async () => void (await unlockScript(1, lockKey, token))),
    seed: (epoch) => call(async () => (await seedScript(2, gKey, gvKey, epoch)) === 1),
    appendJournal(tenant, origin, entries, cap) {
      if (client.status !== 'ready' || entries.length === 0) return;
      appendScript(1, jKey(tenant), origin, cap, ...entries).catch(() => undefined);
    },
    journalSince: (tenant, after, cap) =>
      call(async () => {
        const raw =
          after === undefined
            ? (await client.xrevrange(jKey(tenant), '+', '-', 'COUNT', cap)).reverse()
            : await client.xrange(jKey(tenant), `(${after}`, '+', 'COUNT', cap);
        return raw.map(([id, fields]) => ({ id, origin: fields[1] ?? '', entry: fields[3] ?? '' }));
      }),
    dropJournal(tenant) {
      client.del(jKey(tenant)).catch(() => undefined);
    },
    beat: (name, windowMs) =>
      call(async () => {
        const now = Date.now();
        const [, wanted] = await Promise.all([client.hset(`${prefix}procs`, name, String(now)), client.get(`${prefix}jwant`)]);
        return wanted !== null && Number(wanted) > now - windowMs;
      }),
    lease: (eventId, holder, ms) => call(async () => (await client.set(`${prefix}wl:${eventId}`, holder, 'PX', ms, 'NX')) === 'OK'),
    wantJournal: () => call(async () => void (await client.set(`${prefix}jwant`, String(Date.now())))),
    otherProcesses: (name, withinMs) =>
      call(async () => {
        const all = Object.entries(await client.hgetall(`${prefix}procs`));
        const since = Date.now() - withinMs;
        // Processes gone for a minute are forgotten.
        const gone = all.filter(([, at]) => Number(at) < Date.now() - 60_000).map(([other]) => other);
        if (gone.length > 0) await client.hdel(`${prefix}procs`, ...gone);
        return all.filter(([other, at]) => other !== name && Number(at) > since).length;
      }),
    async ping() {
      try {
        await whenReady();
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      if (client.status === 'wait') {
        client.disconnect();
        return;
      }
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}

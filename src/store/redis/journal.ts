/** The journal with a shared store, shared on demand (decision 0039): entries go to Redis only while someone reads them. */
import type { RedisLink } from './link.js';
import { entryOf, newArray } from '../memory-store.js';
import { maskCardText } from '../../wire/mask.js';
import type { Journal, JournalRecord, JournalSelection } from '../../control/journal.js';

/** How often a process says it is alive and checks whether its entries are wanted. */
const BEAT_MS = 200;
/** How long a process keeps writing its entries after the last ask. */
const WANTED_MS = 10_000;
/** How long an entry waits to be written with others. */
const FLUSH_MS = 20;
/** How long a reader waits for the other processes to write theirs. */
const READ_WAIT_MS = BEAT_MS + FLUSH_MS + 80;
/** A process not heard of for this long is gone. */
const ALIVE_MS = 2_000;

type ShareOptions = { origin: string; tenants: readonly string[]; cap: number };

function share(local: Journal, link: RedisLink, options: ShareOptions) {
  return {
    local,
    link,
    ...options,
    /** Every tenant's stream key, and null for unauthenticated requests. */
    keys: [...options.tenants, null],
    /** The last entry pulled from each stream. */
    after: new Map<string | null, string>(),
    generations: new Map<string, number>(),
    /** Own entries not yet written, per tenant (only the newest `cap` are kept while nobody wants them). */
    waiting: new Map<string | null, JournalRecord[]>(),
    wanted: false,
    pulling: undefined as Promise<void> | undefined,
    flushTimer: undefined as NodeJS.Timeout | undefined,
    beat: undefined as NodeJS.Timeout | undefined,
    /** Open live streams here. */
    streams: 0,
  };
}

type JournalShare = ReturnType<typeof share>;

const masked = (text: string | undefined): string | undefined => (text === undefined ? undefined : maskCardText(text));

/** A record as its stream keeps it: bodies masked, a Buffer body as text. */
const stored = (r: JournalRecord): string =>
  JSON.stringify({ ...r, body: masked(r.body?.toString('utf8')), responseBody: masked(r.responseBody), lostAnswer: r.lostAnswer && { ...r.lostAnswer, body: masked(r.lostAnswer.body) } });

function flush(j: JournalShare): void {
  j.flushTimer = undefined;
  for (const [tenant, list] of j.waiting) j.link.appendJournal(tenant, j.origin, list.map(stored), j.cap);
  j.waiting.clear();
}

/** The heartbeat: says this process is alive, and learns whether anyone asked for the journal lately. Open live streams pull with it. */
function heartbeat(j: JournalShare): void {
  const beat = j.link.run(async (redis, key) => {
    const now = Date.now();
    const [, wanted] = await Promise.all([redis.hset(key.procs, j.origin, String(now)), redis.get(key.journalWanted)]);
    return wanted !== null && Number(wanted) > now - WANTED_MS;
  });
  beat.then(
    (isWanted) => {
      j.wanted = isWanted;
      if (j.wanted && j.waiting.size > 0) j.flushTimer ??= setTimeout(() => flush(j), FLUSH_MS);
      if (j.streams > 0) void pull(j).catch(() => undefined);
    },
    () => undefined,
  );
}

/** Started by the first entry or pull: a process that has answered nothing has nothing to share. It holds no process open. */
function startBeating(j: JournalShare): void {
  if (j.beat) return;
  j.beat = setInterval(() => heartbeat(j), BEAT_MS);
  j.beat.unref();
  heartbeat(j);
}

/** How many other processes said they were alive within ALIVE_MS; those gone for a minute are forgotten. */
async function otherProcesses(j: JournalShare): Promise<number> {
  const all = Object.entries(await j.link.run((redis, key) => redis.hgetall(key.procs)));
  const gone = all.filter(([, at]) => Number(at) < Date.now() - 60_000).map(([other]) => other);
  if (gone.length > 0) await j.link.run((redis, key) => redis.hdel(key.procs, ...gone));
  return all.filter(([other, at]) => other !== j.origin && Number(at) > Date.now() - ALIVE_MS).length;
}

/** Asks every process to write its entries, then reads each stream's entries after the last pulled (at first its newest `cap`). */
async function pullAll(j: JournalShare): Promise<void> {
  await j.link.run((redis, key) => redis.set(key.journalWanted, String(Date.now())));
  j.wanted = true;
  if ((await otherProcesses(j)) > 0) await new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS));
  for (const tenant of j.keys) {
    const after = j.after.get(tenant);
    const entries = await j.link.run(async (redis, key) =>
      after === undefined ? (await redis.xrevrange(key.journal(tenant), '+', '-', 'COUNT', j.cap)).reverse() : redis.xrange(key.journal(tenant), `(${after}`, '+', 'COUNT', j.cap),
    );
    for (const [id, fields] of entries) {
      j.after.set(tenant, id);
      if (fields[1] !== j.origin) j.local.record(JSON.parse(fields[3] ?? '') as JournalRecord);
    }
  }
}

function pull(j: JournalShare): Promise<void> {
  startBeating(j);
  j.pulling ??= pullAll(j).finally(() => (j.pulling = undefined));
  return j.pulling;
}

export function createSharedJournal(local: Journal, link: RedisLink, options: ShareOptions) {
  const j = share(local, link, options);
  return {
    ...local,
    record(entry: JournalRecord): void {
      local.record(entry);
      startBeating(j);
      const list = entryOf(j.waiting, entry.tenant, newArray<JournalRecord>);
      list.push(entry);
      if (j.wanted) j.flushTimer ??= setTimeout(() => flush(j), FLUSH_MS);
      else if (list.length > 2 * j.cap) list.splice(0, list.length - j.cap);
    },
    clear(tenant?: string): void {
      local.clear(tenant);
      for (const key of tenant === undefined ? j.keys : [tenant]) {
        j.waiting.delete(key);
        link.dropJournal(key);
        if (key !== null) j.generations.set(key, (j.generations.get(key) ?? 0) + 1);
      }
    },
    /** How many times a tenant's journal was cleared (a tenant record carries it to the other processes). */
    generation: (tenant: string): number => j.generations.get(tenant) ?? 0,
    /** Another process cleared the tenant's journal: clear it here too. */
    cleared(tenant: string, generation: number): void {
      if ((j.generations.get(tenant) ?? 0) === generation) return;
      j.generations.set(tenant, generation);
      j.waiting.delete(tenant);
      local.clear(tenant);
    },
    subscribe(listener: (selection: JournalSelection) => void): () => void {
      const unsubscribe = local.subscribe(listener);
      j.streams++;
      return () => {
        unsubscribe();
        j.streams--;
      };
    },
    /** Pulls the entries other processes recorded (asking them to write them first). */
    pull: (): Promise<void> => pull(j),
    close(): void {
      if (j.beat) clearInterval(j.beat);
      j.beat = undefined;
      if (j.flushTimer) {
        clearTimeout(j.flushTimer);
        flush(j);
      }
    },
  };
}

export type SharedJournal = ReturnType<typeof createSharedJournal>;

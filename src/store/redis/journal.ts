/**
 * The journal with a shared store (decision 0039). Each process records into its own journal as before; its
 * entries go to Redis (each tenant's capped stream, bodies masked) only while someone wants them, so that a
 * load test that lists nothing pays nothing for it:
 * - a control read of the journal (or an open live stream) says so in Redis; if other processes are alive,
 *   it waits for them to write (they check every 200 ms and write within 20 ms), then pulls their entries in;
 * - while wanted (for 10 s after the last ask), a process writes its entries in batches every 20 ms; before
 *   that, the newest `cap` per tenant wait in memory and are written when asked.
 * An entry from another process takes its place in the order it is pulled. Clearing clears the streams too,
 * and the tenant's record tells the other processes to clear theirs.
 */
import type { RedisLink } from './link.js';
import { maskCardText } from '../../wire/mask.js';
import type { Journal, JournalRecord, JournalSelection } from '../../control/journal.js';

export interface SharedJournal extends Journal {
  /** Pulls the entries other processes recorded (asking them to write them first). */
  pull(): Promise<void>;
  close(): void;
  /** How many times a tenant's journal was cleared (a tenant record carries it to the other processes). */
  generation(tenant: string): number;
  /** Another process cleared the tenant's journal: clear it here too. */
  cleared(tenant: string, generation: number): void;
}

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

export function createSharedJournal(local: Journal, link: RedisLink, options: { origin: string; tenants: readonly string[]; cap: number }): SharedJournal {
  const { origin, cap } = options;
  const keys: (string | null)[] = [...options.tenants, null];
  const after = new Map<string | null, string>();
  const generations = new Map<string, number>();
  /** Own entries not yet written, per tenant (only the newest `cap` are kept while nobody wants them). */
  const waiting = new Map<string | null, JournalRecord[]>();
  let wanted = false;
  let pulling: Promise<void> | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let streams = 0;

  const stored = (record: JournalRecord): string =>
    JSON.stringify({
      ...record,
      body: typeof record.body === 'string' ? maskCardText(record.body) : Buffer.isBuffer(record.body) ? maskCardText(record.body.toString('utf8')) : undefined,
      responseBody: record.responseBody === undefined ? undefined : maskCardText(record.responseBody),
    });

  function flush(): void {
    flushTimer = undefined;
    for (const [tenant, list] of waiting) link.appendJournal(tenant, origin, list.map(stored), cap);
    waiting.clear();
  }

  // The heartbeat: alive, and wanted or not; the first at once. It holds no process open.
  const heartbeat = (): void => {
    link.beat(origin, WANTED_MS).then(
      (isWanted) => {
        wanted = isWanted;
        if (wanted && waiting.size > 0) flushTimer ??= setTimeout(flush, FLUSH_MS);
        if (streams > 0) void shared.pull().catch(() => undefined);
      },
      () => undefined,
    );
  };
  // Started by the first entry: a process that has answered nothing has nothing to share.
  let beat: NodeJS.Timeout | undefined;
  const startBeating = (): void => {
    if (beat) return;
    beat = setInterval(heartbeat, BEAT_MS);
    beat.unref();
    heartbeat();
  };

  async function pullAll(): Promise<void> {
    await link.wantJournal();
    wanted = true;
    if ((await link.otherProcesses(origin, ALIVE_MS)) > 0) await new Promise((resolve) => setTimeout(resolve, READ_WAIT_MS));
    for (const tenant of keys) {
      const entries = await link.journalSince(tenant, after.get(tenant), cap);
      for (const { id, origin: from, entry } of entries) {
        after.set(tenant, id);
        if (from !== origin) local.record(JSON.parse(entry) as JournalRecord);
      }
    }
  }

  const shared: SharedJournal = {
    ...local,
    record(entry) {
      local.record(entry);
      startBeating();
      let list = waiting.get(entry.tenant);
      if (!list) waiting.set(entry.tenant, (list = []));
      list.push(entry);
      if (wanted) flushTimer ??= setTimeout(flush, FLUSH_MS);
      else if (list.length > 2 * cap) list.splice(0, list.length - cap);
    },
    clear(tenant) {
      local.clear(tenant);
      for (const key of tenant === undefined ? keys : [tenant]) {
        waiting.delete(key);
        link.dropJournal(key);
        if (key !== null) generations.set(key, (generations.get(key) ?? 0) + 1);
      }
    },
    generation: (tenant) => generations.get(tenant) ?? 0,
    cleared(tenant, generation) {
      if ((generations.get(tenant) ?? 0) === generation) return;
      generations.set(tenant, generation);
      waiting.delete(tenant);
      local.clear(tenant);
    },
    subscribe(listener: (selection: JournalSelection) => void) {
      const unsubscribe = local.subscribe(listener);
      streams++;
      return () => {
        unsubscribe();
        streams--;
      };
    },
    pull() {
      startBeating();
      pulling ??= pullAll().finally(() => (pulling = undefined));
      return pulling;
    },
    close() {
      if (beat) clearInterval(beat);
      beat = undefined;
      if (flushTimer) {
        clearTimeout(flushTimer);
        flush();
      }
    },
  };
  return shared;
}

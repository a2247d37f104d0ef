/** The live journal (decision 0034) at a cost that does not multiply with its clients: each entry is matched once per filter. */
import type { Request, Response } from 'express';
import { matchesJournalFilter, type Journal, type JournalFilter, type JournalSelection } from '../control/journal.js';
import { toEntry } from '../control/journal-entry.js';

/** How the live journal bounds each client (decision 0034); what is dropped is reported as a gap. */
export const STREAM_LIMITS = {
  /** Entries sent first without `since` or `Last-Event-ID`. */
  backlog: 50,
  /** Entries sent first at most when resuming. */
  resume: 1000,
  /** Entries waiting for a client at most (the oldest dropped); so at most pending × 1000 / flushMs a second. */
  pending: 200,
  /** New entries are written together this long after the first arrives: one write per period, not per request (0: next turn). */
  flushMs: 200,
  /** New entries handed out per period across all clients at most, shared equally: bounded however many listen (contract 4.1). */
  budget: 1000,
  /** Bytes buffered in the response at most before entries wait. */
  buffered: 256 * 1024,
  /** A comment line this often keeps proxies and the browser from closing an idle stream. */
  heartbeatMs: 15_000,
};

export type StreamLimits = typeof STREAM_LIMITS;

/** One client: what it waits for, and what it missed since its last write. */
class Client {
  draining = false;
  /** A flush waits for the next turn. */
  scheduled = false;
  closed = false;
  /** Ends the stream and forgets the client (set by `open`). */
  end = (): void => undefined;

  /** `after`: entries up to this seq were sent or skipped already (the backlog). */
  constructor(
    readonly res: Response,
    public after: number,
    public pending: JournalSelection[],
    public skipped: number,
  ) {}
}

/** Clients with one tenant and filter. */
interface Group {
  readonly tenant: string | undefined;
  readonly filter: JournalFilter;
  /** No tenant, no filter: every entry matches. */
  readonly all: boolean;
  readonly clients: Set<Client>;
}

const gap = (skipped: number): string => `event: gap\ndata: {"skipped":${skipped}}\n\n`;

/** The live journal of one simulator: the only record of its open clients, ended at server close so that none holds the shutdown. */
export class StreamHub {
  /** Each entry's event, serialised and masked once. */
  private readonly frames = new WeakMap<JournalSelection, string>();
  private readonly groups = new Map<string, Group>();
  private fresh: JournalSelection[] = [];
  private scheduled = false;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(private readonly journal: Journal, private readonly limits: StreamLimits) {}

  size(): number {
    let clients = 0;
    for (const group of this.groups.values()) clients += group.clients.size;
    return clients;
  }

  /** Ends every open stream (and any opened later). */
  closeAll(): void {
    this.closed = true;
    for (const group of [...this.groups.values()]) for (const client of [...group.clients]) client.end();
  }

  private frameOf(s: JournalSelection): string {
    let frame = this.frames.get(s);
    if (frame === undefined) this.frames.set(s, (frame = `id: ${s.seq}\nevent: request\ndata: ${JSON.stringify(toEntry(s))}\n\n`));
    return frame;
  }

  /** Writes what waits while the response buffers less than the bound; the rest waits for 'drain'. */
  private flush(client: Client): void {
    const { res } = client;
    const { buffered } = this.limits;
    if (client.closed) return;
    if (client.skipped > 0 && res.writableLength < buffered) {
      res.write(gap(client.skipped));
      client.skipped = 0;
    }
    // One write for what fits: under load, many entries go out in one chunk.
    let i = 0;
    let chunk = '';
    while (i < client.pending.length && client.skipped === 0 && res.writableLength + chunk.length < buffered) chunk += this.frameOf(client.pending[i++] as JournalSelection);
    if (chunk !== '') res.write(chunk);
    client.pending = i === client.pending.length ? [] : client.pending.slice(i);
    if (client.pending.length === 0 && client.skipped === 0) return;
    // The rest waits for 'drain' when the socket is behind; else (no 'drain' will come) for the next turn.
    if (res.writableNeedDrain) {
      if (client.draining) return;
      client.draining = true;
      res.once('drain', () => {
        client.draining = false;
        this.flush(client);
      });
    } else if (!client.scheduled) {
      client.scheduled = true;
      setImmediate(() => {
        client.scheduled = false;
        if (!client.draining) this.flush(client);
      });
    }
  }

  /** Hands a client a period's matching entries: at most `share` taken and `pending` waiting, the rest a gap. */
  private hand(client: Client, matched: readonly JournalSelection[], share: number): void {
    let from = 0;
    // Only a client that joined during this period skips entries its backlog held.
    if ((matched[0]?.seq ?? Infinity) <= client.after) while (from < matched.length && (matched[from] as JournalSelection).seq <= client.after) from++;
    const count = matched.length - from;
    if (count === 0) return;
    const take = Math.min(count, share);
    client.skipped += count - take;
    const waiting = client.pending.length + take - this.limits.pending;
    if (waiting > 0) {
      client.pending = client.pending.slice(waiting);
      client.skipped += waiting;
    }
    for (let i = matched.length - take; i < matched.length; i++) client.pending.push(matched[i] as JournalSelection);
    if (!client.draining) this.flush(client);
  }

  private readonly tick = (): void => {
    this.scheduled = false;
    const batch = this.fresh;
    this.fresh = [];
    const share = Math.max(1, Math.min(this.limits.pending, Math.floor(this.limits.budget / Math.max(1, this.size()))));
    for (const group of this.groups.values()) {
      const matched = group.all
        ? batch
        : batch.filter((s) => (group.tenant === undefined || s.record.tenant === group.tenant) && matchesJournalFilter(group.filter, s.seq, s.record));
      if (matched.length > 0) for (const client of group.clients) this.hand(client, matched, share);
    }
  };

  private readonly listen = (s: JournalSelection): void => {
    this.fresh.push(s);
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.limits.flushMs > 0) setTimeout(this.tick, this.limits.flushMs);
    else setImmediate(this.tick);
  };

  /** The live journal on one response: backlog first, then each new entry (decision 0034). */
  open(req: Request, res: Response, tenant: string | undefined, filter: JournalFilter, since: number | undefined): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' }).flushHeaders();
    req.socket.setNoDelay(true);
    // The backlog and the subscription in one turn: no entry is missed or sent twice.
    const { selected } = this.journal.select(tenant, since === undefined ? filter : { ...filter, since });
    const keep = since === undefined ? this.limits.backlog : this.limits.resume;
    const client = new Client(
      res,
      Math.max(this.fresh.at(-1)?.seq ?? 0, selected.at(-1)?.seq ?? 0),
      selected.slice(Math.max(0, selected.length - keep)),
      since !== undefined && selected.length > keep ? selected.length - keep : 0,
    );
    const key = JSON.stringify([tenant ?? null, filter]);
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { tenant, filter, all: tenant === undefined && Object.values(filter).every((v) => v === undefined), clients: new Set() }));
    group.clients.add(client);
    this.unsubscribe ??= this.journal.subscribe(this.listen);
    // Heartbeats until the client closes or the server ends the stream; then it is forgotten.
    const heartbeat = setInterval(() => {
      if (res.writableLength < this.limits.buffered) res.write(': heartbeat\n\n');
    }, this.limits.heartbeatMs);
    heartbeat.unref();
    const cleanup = (): void => {
      if (client.closed) return;
      client.closed = true;
      clearInterval(heartbeat);
      client.pending = [];
      group.clients.delete(client);
      if (group.clients.size === 0) this.groups.delete(key);
      if (this.groups.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
        this.fresh = [];
      }
    };
    res.once('close', cleanup);
    client.end = () => {
      cleanup();
      res.end();
    };
    // After closeAll, a stream opened is ended at once.
    if (this.closed) client.end();
    if (!client.closed) this.flush(client);
  }
}

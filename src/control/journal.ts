/**
 * The request journal, bounded per tenant and in total. Recording keeps references to what the request holds;
 * formatting and masking are done only for the entries a listing returns (journal-entry.ts, har).
 */
import type { FieldProblem } from '../wire/problems.js';
import { meantValueHint } from '../wire/unknown-fields.js';
import { mustBeStringMessage } from '../wire/validation.js';
import { Queue } from '../infra/queue.js';
import { OPERATIONS, toEntry, type JournalEntry, type JournalRecord, type Operation } from './journal-entry.js';

export { OPERATIONS, type JournalEntry, type JournalRecord, type Operation } from './journal-entry.js';

/** Bodies over this size are dropped whole: entries must stay small, and a cut could split a card number that masking then misses. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Which journal entries to list (`GET /_sim/requests` takes the same as query parameters); all must hold. */
export interface JournalFilter {
  operation?: Operation;
  /** The HTTP status of the answer (0: unanswered). */
  status?: number;
  /** The request method, in any case. */
  method?: string;
  /** The id of the scenario rule that applied. */
  rule?: string;
  /** Only entries recorded after the one with this `seq` (exclusive): poll with the last `seq` seen. */
  since?: number;
  /** At most this many entries, the oldest matching first. */
  limit?: number;
}

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const MAX_STATUS = 599;
const MAX_RULE = 256;

function integerProblems(key: string, value: unknown, max: number, what: string): FieldProblem[] {
  const errorName = typeof value !== 'number' || !Number.isInteger(value) ? 'fieldMustBeInteger' : value < 0 ? 'integerIsTooSmall' : value > max ? 'integerIsTooLarge' : undefined;
  return errorName === undefined ? [] : [{ errorName, message: `${key} must be ${what}`, path: [key] }];
}

function stringProblems(key: string, value: unknown, check: (s: string) => string | undefined): FieldProblem[] {
  const path = [key];
  if (typeof value !== 'string') return [{ errorName: 'fieldMustBeString', message: mustBeStringMessage(key, value, path), path }];
  if (value === '') return [{ errorName: 'fieldIsEmpty', message: `${key} must not be empty`, path }];
  const problem = check(value);
  return problem === undefined ? [] : [{ errorName: 'fieldHasInvalidValue', message: problem, path }];
}

const nonNegative = (key: string, value: unknown): FieldProblem[] => integerProblems(key, value, Number.MAX_SAFE_INTEGER, 'a non-negative integer');

/** Each filter key's check, in the filter's words, with the key as the path of its problem. */
const FILTER_CHECKS: Readonly<Record<keyof JournalFilter, (key: string, value: unknown) => FieldProblem[]>> = {
  operation: (key, value) =>
    stringProblems(key, value, (s) => ((OPERATIONS as readonly string[]).includes(s) ? undefined : `operation must be one of ${OPERATIONS.join(', ')}${meantValueHint(s, OPERATIONS, '')}`)),
  status: (key, value) => integerProblems(key, value, MAX_STATUS, `an HTTP status from 0 to ${MAX_STATUS}`),
  method: (key, value) => stringProblems(key, value, (s) => (METHOD.test(s) ? undefined : 'method must be an HTTP method such as GET or POST')),
  rule: (key, value) => stringProblems(key, value, (s) => (s.length <= MAX_RULE ? undefined : `rule must be at most ${MAX_RULE} characters`)),
  since: nonNegative,
  limit: nonNegative,
};

export const JOURNAL_FILTER_KEYS = Object.keys(FILTER_CHECKS) as readonly (keyof JournalFilter)[];

/** Every problem of a filter, one per offending key (its path), in the filter's words: for /_sim's query and the library alike. */
export function journalFilterProblems(filter: Readonly<Record<string, unknown>>): FieldProblem[] {
  return Object.keys(filter).flatMap((key): FieldProblem[] => {
    const value = filter[key];
    if (value === undefined) return [];
    if (!Object.hasOwn(FILTER_CHECKS, key)) {
      return [{ errorName: 'fieldIsNotAllowed', message: `${key} is not a journal filter; use ${JOURNAL_FILTER_KEYS.join(', ')}`, path: [key] }];
    }
    return FILTER_CHECKS[key as keyof JournalFilter](key, value);
  });
}

/** A filter in which journalFilterProblems found nothing (the caller refuses first), its method upper-cased. */
export const cleanJournalFilter = (filter: JournalFilter): JournalFilter => (filter.method === undefined ? filter : { ...filter, method: filter.method.toUpperCase() });

/** One kept request: the record as recorded and its order of recording. */
export interface JournalSelection {
  readonly seq: number;
  readonly record: JournalRecord;
}

/** Whether a record passes a filter (the live journal applies it to each new entry). */
export const matchesJournalFilter = (filter: JournalFilter, seq: number, r: JournalRecord): boolean =>
  (filter.since === undefined || seq > filter.since) &&
  (filter.operation === undefined || r.operation === filter.operation) &&
  (filter.status === undefined || r.status === filter.status) &&
  (filter.method === undefined || r.method.toUpperCase() === filter.method.toUpperCase()) &&
  (filter.rule === undefined || r.rule === filter.rule);

export interface JournalBounds {
  /** Entries kept per tenant (unauthenticated requests count as one tenant). */
  perTenant: number;
  /** Entries kept across all tenants: the oldest go first. */
  total: number;
  /** Characters of request and response bodies kept across all tenants: the oldest entries go first. */
  bodyChars: number;
}

/** 32 Mi characters of bodies at most, whatever the entry bounds. */
export const DEFAULT_BODY_CHARS = 32 * 1024 * 1024;

interface Stored extends JournalSelection {
  live: boolean;
}

const bodyCharsOf = (r: JournalRecord): number => (typeof r.body === 'string' ? r.body.length : 0) + (r.responseBody?.length ?? 0) + (r.lostAnswer?.body?.length ?? 0);

/** The record as kept: bodies over MAX_BODY_BYTES dropped whole (their size noted), a Buffer body as text. */
function keptRecord(entry: JournalRecord): JournalRecord {
  let record = entry;
  if (entry.body !== undefined && entry.body.length > MAX_BODY_BYTES) {
    record = { ...record, body: undefined, omittedBodyBytes: Buffer.byteLength(entry.body) };
  } else if (Buffer.isBuffer(entry.body)) {
    record = { ...entry, body: entry.body.toString('utf8') };
  }
  if (record.responseBody !== undefined && record.responseBody.length > MAX_BODY_BYTES) {
    record = { ...record, responseBody: undefined, omittedResponseBytes: Buffer.byteLength(record.responseBody) };
  }
  // A lost answer keeps its status and how it was lost; its body only when small enough.
  if (record.lostAnswer?.body !== undefined && record.lostAnswer.body.length > MAX_BODY_BYTES) record = { ...record, lostAnswer: { ...record.lostAnswer, body: undefined } };
  return record;
}

/** The oldest `filter.limit` live entries of a queue that pass the filter, and how many pass it. */
function selectFrom(queue: Queue<Stored> | undefined, filter: JournalFilter): { selected: JournalSelection[]; count: number } {
  const selected: JournalSelection[] = [];
  const limit = filter.limit ?? Number.POSITIVE_INFINITY;
  let count = 0;
  queue?.forEach((s) => {
    if (!s.live || !matchesJournalFilter(filter, s.seq, s.record)) return;
    count++;
    if (selected.length < limit) selected.push(s);
  });
  return { selected, count };
}

export type Journal = ReturnType<typeof createJournal>;

/** Bounded per tenant and in total (entries, body characters): recording past a bound drops the oldest at once. */
export function createJournal(bounds: JournalBounds) {
  /** Every live entry in recording order, and entries a tenant bound dropped until compacted. */
  let all = new Queue<Stored>();
  const byTenant = new Map<string | null, Queue<Stored>>();
  let seq = 0;
  let entries = 0;
  let bodyChars = 0;
  /** The live journal's listeners (decision 0034): undefined while there is none. */
  let listeners: Set<(selection: JournalSelection) => void> | undefined;

  function drop(stored: Stored): void {
    stored.live = false;
    entries--;
    bodyChars -= bodyCharsOf(stored.record);
  }

  /** Drops the oldest live entry of all (it is the oldest of its own tenant too). */
  function dropOldest(): void {
    let oldest = all.shift();
    while (oldest && !oldest.live) oldest = all.shift();
    if (!oldest) return;
    drop(oldest);
    const queue = byTenant.get(oldest.record.tenant);
    queue?.shift();
    if (queue?.length === 0) byTenant.delete(oldest.record.tenant);
  }

  const queueOf = (tenant: string | undefined): Queue<Stored> | undefined => (tenant === undefined ? all : byTenant.get(tenant));

  return {
    record(entry: JournalRecord): void {
      if (bounds.perTenant <= 0 || bounds.total <= 0) return;
      const record = keptRecord(entry);
      const stored: Stored = { seq: ++seq, record, live: true };
      let queue = byTenant.get(record.tenant);
      if (!queue) byTenant.set(record.tenant, (queue = new Queue()));
      queue.push(stored);
      all.push(stored);
      entries++;
      bodyChars += bodyCharsOf(record);
      if (queue.length > bounds.perTenant) drop(queue.shift() as Stored);
      while (entries > bounds.total || (bodyChars > bounds.bodyChars && entries > 1)) dropOldest();
      // Entries dropped by a tenant bound wait in `all` until the head reaches them: compact when they dominate.
      if (all.length > 2 * entries + 1024) all.retain((s) => s.live);
      if (listeners !== undefined) for (const listener of listeners) listener(stored);
    },
    /** Tells `listener` of every entry as it is recorded (the live journal, decision 0034); returns the unsubscribe. */
    subscribe(listener: (selection: JournalSelection) => void): () => void {
      (listeners ??= new Set()).add(listener);
      return () => {
        listeners?.delete(listener);
        if (listeners?.size === 0) listeners = undefined;
      };
    },
    /** One tenant's entries, or every tenant's (null: unauthenticated) when tenant is undefined; oldest first. */
    list: (tenant?: string): JournalEntry[] => selectFrom(queueOf(tenant), {}).selected.map(toEntry),
    /** The oldest `filter.limit` records (all without a limit) that pass the filter; `count` is how many pass it. */
    select: (tenant: string | undefined, filter: JournalFilter): { selected: JournalSelection[]; count: number } => selectFrom(queueOf(tenant), filter),
    clear(tenant?: string): void {
      if (tenant === undefined) {
        all = new Queue();
        byTenant.clear();
        entries = 0;
        bodyChars = 0;
        return;
      }
      const queue = byTenant.get(tenant);
      if (!queue) return;
      for (const stored of queue.toArray()) drop(stored);
      byTenant.delete(tenant);
      all.retain((s) => s.live);
    },
    size: (): { entries: number; bodyChars: number } => ({ entries, bodyChars }),
  };
}

/**
 * A journal record as a listing shows it: times formatted, and card data masked in the path, the query, the
 * kept headers and both bodies. Only the entries a listing returns are formatted, never on the request path.
 */
import { formatInstant } from '../wire/instant.js';
import { maskBodyText, maskCardNumbersIn, maskCardText, maskCorrelationId, maskField, maskHref } from '../wire/mask.js';
import { API_OPERATIONS } from '../wire/schemas.js';

export const OPERATIONS = [...API_OPERATIONS, 'unknown'] as const;
/** A journaled request's operation: `unknown` for a request no route took. */
export type Operation = (typeof OPERATIONS)[number];

/** What every journal entry says about its request, stored and listed alike. */
export interface JournalFields {
  /** The Basic-auth username; null when the request was not authenticated. */
  tenant: string | null;
  operation: Operation;
  method: string;
  /** As requested when stored; card numbers in it are masked when listed. */
  path: string;
  /** The HTTP status of the answer (0: unanswered). */
  status: number;
  errorName?: string;
  correlationId: string;
  durationMs: number;
  /** The scenario rule that shaped the answer, if any. */
  rule: string | null;
}

/** The request headers kept (never Authorization), in this order, and the record's field for each; the correlation header listed under the simulator's name for it. */
export const KEPT_REQUEST_HEADERS = [
  ['Host', 'host'],
  ['Accept', 'accept'],
  ['Content-Type', 'contentType'],
  ['Content-Encoding', 'contentEncoding'],
  ['Content-Length', 'contentLength'],
  ['Correlation-Id', 'clientCorrelationId'],
] as const;

type KeptHeaders = { [K in (typeof KEPT_REQUEST_HEADERS)[number][1]]?: string | undefined };

/** What is kept per request: references to what the request and answer hold, in one shape (every field present), so recording stays cheap. */
export interface JournalRecord extends Omit<JournalFields, 'errorName'>, KeptHeaders {
  errorName?: string | undefined;
  virtualMs: number;
  realMs: number;
  query?: string | undefined;
  /** The correlation header's name, request and answer alike (`WP-CorrelationId` with `--vendor worldpay`); absent: `Correlation-Id`. */
  correlationHeader?: string | undefined;
  /** Kept up to MAX_BODY_BYTES; a Buffer is made text when recorded (a small one is a slice of an 8 KiB pool slab it would keep). */
  body?: Buffer | string | undefined;
  omittedBodyBytes?: number;
  /** The answer's headers: the correlation header, `sentHeaders` (name, value…; absent when unanswered), `responseHeaders`, then the body's type and length. */
  sentHeaders?: readonly string[] | undefined;
  responseHeaders?: Readonly<Record<string, string>> | undefined;
  /** Absent: application/json. */
  responseType?: string | undefined;
  responseBody?: string | undefined;
  /** The answer a `lostAnswer` rule kept from the client (contract 4.4): how it was lost, and what it was (body up to MAX_BODY_BYTES). */
  lostAnswer?: { as: string; status: number; mediaType?: string | undefined; body?: string | undefined } | undefined;
  omittedResponseBytes?: number;
}

/** One request in the journal: what was asked and answered, card data masked, credentials never kept. */
export interface JournalEntry extends JournalFields {
  /** Order in which answers were recorded (finished) in this simulator. */
  seq: number;
  /** The tenant's virtual time and the real time when the answer was sent. */
  virtualTime: string;
  realTime: string;
  /** The query string (without `?`), card data masked; absent when there was none. */
  query?: string;
  /** The kept request headers (Host, Accept, Content-Type, Content-Encoding, Content-Length, Correlation-Id or WP-CorrelationId) that were sent, masked. */
  requestHeaders: Record<string, string>;
  /** The request body if it was JSON, masked; a note when it was too large to keep; absent when there was none. */
  requestBody?: unknown;
  /** The request body if it was not JSON, as masked text. */
  requestText?: string;
  /** The answer's headers as sent, masked; empty when the request was not answered. */
  responseHeaders: Record<string, string>;
  /** The answer's body if it was JSON, masked; a note when it was too large to keep; absent when there was none. */
  responseBody?: unknown;
  /** The answer's body if it was not JSON, as masked text. */
  responseText?: string;
  /**
   * With a `lostAnswer` rule: the work was done, and this was its answer, which the client never got (it got
   * what `status` says: 0, the connection reset or never answered, or 500). Its body masked, as `body` or `text`.
   */
  lostAnswer?: { as: 'connectionReset' | 'noResponse' | 'internalError'; status: number; body?: unknown; text?: string };
}

export type BodyView = { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'omitted'; bytes: number };

export function bodyView(body: string | Buffer | undefined, omittedBytes: number | undefined): BodyView | undefined {
  if (omittedBytes !== undefined) return { kind: 'omitted', bytes: omittedBytes };
  if (body === undefined) return undefined;
  const masked = maskBodyText(typeof body === 'string' ? body : body.toString('utf8'));
  return masked.json ? { kind: 'json', value: masked.value } : { kind: 'text', text: masked.text };
}

export const omittedNote = (bytes: number): string => `[a body of ${bytes} bytes, not kept]`;

/** The body fields of an entry (or of its lost answer), under `body` (JSON or a note) or `text`. */
function bodyFields<B extends string, T extends string>(view: BodyView | undefined, body: B, text: T): Partial<Record<B, unknown> & Record<T, string>> {
  if (view === undefined) return {};
  const fields = view.kind === 'omitted' ? { [body]: omittedNote(view.bytes) } : view.kind === 'json' ? { [body]: view.value } : { [text]: view.text };
  return fields as Partial<Record<B, unknown> & Record<T, string>>;
}

/** The query's parameters, decoded, each masked by its name (`cvc`, `cardNumber`…) and its content. */
export function maskedQueryPairs(query: string): [string, string][] {
  return [...new URLSearchParams(query)].map(([name, value]) => [maskCardText(name), maskField(name, value)]);
}

export function maskedRequestHeaders(r: JournalRecord): [string, string][] {
  return KEPT_REQUEST_HEADERS.flatMap(([name, key]): [string, string][] => {
    const value = r[key];
    if (value === undefined) return [];
    return key === 'clientCorrelationId' ? [[r.correlationHeader ?? name, maskCorrelationId(maskCardText(value))]] : [[name, maskCardText(value)]];
  });
}

/** The answer's headers as sent (none when unanswered), masked: Location's authority (from the Host header) too; the correlation id was masked on arrival. */
export function maskedResponseHeaders(r: JournalRecord): [string, string][] {
  if (r.sentHeaders === undefined) return [];
  const out: [string, string][] = [];
  const add = (name: string, value: string): number => out.push([name, name.toLowerCase() === 'location' ? maskHref(value) : maskCardText(value)]);
  for (let i = 0; i + 1 < r.sentHeaders.length; i += 2) add(r.sentHeaders[i] as string, r.sentHeaders[i + 1] as string);
  if (r.responseHeaders) for (const name in r.responseHeaders) add(name, r.responseHeaders[name] as string);
  const size = r.omittedResponseBytes ?? (r.responseBody === undefined ? undefined : Buffer.byteLength(r.responseBody));
  if (size !== undefined) {
    add('Content-Type', r.responseType ?? 'application/json');
    add('Content-Length', String(size));
  }
  return [[r.correlationHeader ?? 'Correlation-Id', r.correlationId], ...out];
}

export function toEntry({ seq, record: r }: { seq: number; record: JournalRecord }): JournalEntry {
  return {
    seq,
    tenant: r.tenant,
    operation: r.operation,
    method: r.method,
    path: maskCardNumbersIn(r.path),
    ...(r.query !== undefined && { query: new URLSearchParams(maskedQueryPairs(r.query)).toString() }),
    status: r.status,
    ...(r.errorName !== undefined && { errorName: r.errorName }),
    correlationId: r.correlationId,
    virtualTime: formatInstant(r.virtualMs),
    realTime: new Date(r.realMs).toISOString(),
    durationMs: r.durationMs,
    rule: r.rule,
    requestHeaders: Object.fromEntries(maskedRequestHeaders(r)),
    ...bodyFields(bodyView(r.body, r.omittedBodyBytes), 'requestBody', 'requestText'),
    responseHeaders: Object.fromEntries(maskedResponseHeaders(r)),
    ...bodyFields(bodyView(r.responseBody, r.omittedResponseBytes), 'responseBody', 'responseText'),
    // A lost answer's body is never omitted: one too large was dropped when recorded.
    ...(r.lostAnswer && {
      lostAnswer: { as: r.lostAnswer.as as NonNullable<JournalEntry['lostAnswer']>['as'], status: r.lostAnswer.status, ...bodyFields(bodyView(r.lostAnswer.body, undefined), 'body', 'text') },
    }),
  };
}

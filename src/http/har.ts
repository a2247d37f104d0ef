/**
 * The journal as a HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/), for browser dev tools,
 * proxies and HAR viewers. Card data is masked exactly as in the JSON journal; credentials were never kept.
 */
import { STATUS_CODES } from 'node:http';
import {
  bodyView,
  maskedQueryPairs,
  maskedRequestHeaders,
  maskedResponseHeaders,
  omittedNote,
  type BodyView,
} from '../control/journal-entry.js';
import type { JournalRecord, JournalSelection } from '../control/journal.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardNumbersIn } from '../wire/mask.js';

interface HarPair {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    queryString: HarPair[];
    postData?: { mimeType: string; text: string; comment?: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** token-sim's own fields (HAR allows custom fields that start with `_`). */
  _seq: number;
  _tenant: string | null;
  _operation: string;
  _rule: string | null;
  _errorName?: string;
  _correlationId: string;
  _virtualTime: string;
}

export interface HarDocument {
  log: {
    version: '1.2';
    creator: { name: 'token-sim'; version: string };
    entries: HarEntry[];
    /** How many journal entries pass the filter (the entries may be fewer, with `limit`). */
    _count: number;
  };
}

/** node:http speaks HTTP/1.1 (or 1.0 to a client that asks for it; the journal does not keep which). */
const HTTP_VERSION = 'HTTP/1.1';

const pairs = (list: readonly [string, string][]): HarPair[] => list.map(([name, value]) => ({ name, value }));
const headerOf = (list: readonly [string, string][], name: string): string | undefined => list.find(([n]) => n.toLowerCase() === name)?.[1];

/** The body's masked text (JSON as JSON text), and a comment when it was not kept. */
function contentOf(view: BodyView | undefined): { text?: string; comment?: string } {
  if (view === undefined) return {};
  if (view.kind === 'omitted') return { comment: omittedNote(view.bytes) };
  return { text: view.kind === 'json' ? JSON.stringify(view.value) : view.text };
}

const sizeOf = (body: string | Buffer | undefined, omitted: number | undefined): number =>
  omitted ?? (body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length);

function toHarEntry(seq: number, r: JournalRecord, scheme: string): HarEntry {
  const requestHeaders = maskedRequestHeaders(r);
  const responseHeaders = maskedResponseHeaders(r);
  const host = headerOf(requestHeaders, 'host') ?? 'localhost';
  const queryPairs = r.query === undefined ? [] : maskedQueryPairs(r.query);
  const query = queryPairs.length > 0 ? `?${new URLSearchParams(queryPairs).toString()}` : '';
  const requestBody = bodyView(r.body, r.omittedBodyBytes);
  const responseBody = bodyView(r.responseBody, r.omittedResponseBytes);
  const responseSize = sizeOf(r.responseBody, r.omittedResponseBytes);
  const answered = r.responseHeaders !== undefined;
  return {
    startedDateTime: new Date(r.realMs - r.durationMs).toISOString(),
    time: r.durationMs,
    request: {
      method: r.method,
      url: `${scheme}://${host}${maskCardNumbersIn(r.path)}${query}`,
      httpVersion: HTTP_VERSION,
      cookies: [],
      headers: pairs(requestHeaders),
      queryString: pairs(queryPairs),
      ...(requestBody !== undefined && { postData: { mimeType: headerOf(requestHeaders, 'content-type') ?? '', text: '', ...contentOf(requestBody) } }),
      headersSize: -1,
      // As sent: a compressed body's Content-Length, else the size of the text.
      bodySize: r.contentLength !== undefined && /^[0-9]+$/.test(r.contentLength) ? Number(r.contentLength) : sizeOf(r.body, r.omittedBodyBytes),
    },
    response: {
      status: r.status,
      statusText: STATUS_CODES[r.status] ?? '',
      httpVersion: answered ? HTTP_VERSION : '',
      cookies: [],
      headers: pairs(responseHeaders),
      content: { size: responseSize, mimeType: headerOf(responseHeaders, 'content-type') ?? '', ...contentOf(responseBody) },
      redirectURL: headerOf(responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: answered ? responseSize : -1,
    },
    cache: {},
    // The simulator measures one span, from the request's arrival to the end of its answer.
    timings: { send: 0, wait: r.durationMs, receive: 0 },
    _seq: seq,
    _tenant: r.tenant,
    _operation: r.operation,
    _rule: r.rule,
    ...(r.errorName !== undefined && { _errorName: r.errorName }),
    _correlationId: r.correlationId,
    _virtualTime: formatInstant(r.virtualMs),
  };
}

/** The selected journal records as one HAR 1.2 log, oldest first. */
export function toHar(records: readonly JournalSelection[], count: number, version: string, scheme: 'http' | 'https' = 'http'): HarDocument {
  return {
    log: {
      version: '1.2',
      creator: { name: 'token-sim', version },
      entries: records.map(({ seq, record }) => toHarEntry(seq, record, scheme)),
      _count: count,
    },
  };
}

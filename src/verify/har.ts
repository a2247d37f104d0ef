/** The journal, and a recording's exchanges, as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), card data masked. */
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

/** node:http speaks HTTP/1.1 (or 1.0 to a client that asks for it; the journal does not keep which). */
const HTTP_VERSION = 'HTTP/1.1';

const pairs = (list: readonly [string, string][]): { name: string; value: string }[] => list.map(([name, value]) => ({ name, value }));
const headerOf = (list: readonly [string, string][], name: string): string | undefined => list.find(([n]) => n.toLowerCase() === name)?.[1];

type Content = { text?: string; comment?: string };

/** The body's masked text (JSON as JSON text), and a comment when it was not kept. */
function contentOf(view: BodyView | undefined): Content {
  if (view === undefined) return {};
  if (view.kind === 'omitted') return { comment: omittedNote(view.bytes) };
  return { text: view.kind === 'json' ? JSON.stringify(view.value) : view.text };
}

const sizeOf = (body: string | Buffer | undefined, omitted: number | undefined): number =>
  omitted ?? (body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length);

/** What an exchange is made of: headers as pairs, bodies as text already masked or redacted. */
export interface ExchangeParts {
  startedMs: number;
  durationMs: number;
  method: string;
  url: string;
  requestHeaders: readonly [string, string][];
  queryPairs: readonly [string, string][];
  requestBody: Content | undefined;
  requestBodySize: number;
  status: number;
  responseHeaders: readonly [string, string][];
  answered: boolean;
  responseBody: Content | undefined;
  responseSize: number;
}

/** One exchange as a HAR 1.2 entry: what the journal's entries and a recording's (src/verify) share. */
export function harExchange(x: ExchangeParts) {
  const { responseHeaders, answered } = x;
  return {
    startedDateTime: new Date(x.startedMs).toISOString(),
    time: x.durationMs,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: HTTP_VERSION,
      cookies: [],
      headers: pairs(x.requestHeaders),
      queryString: pairs(x.queryPairs),
      ...(x.requestBody !== undefined && { postData: { mimeType: headerOf(x.requestHeaders, 'content-type') ?? '', text: '', ...x.requestBody } }),
      headersSize: -1,
      bodySize: x.requestBodySize,
    },
    response: {
      status: x.status,
      statusText: STATUS_CODES[x.status] ?? '',
      httpVersion: answered ? HTTP_VERSION : '',
      cookies: [],
      headers: pairs(responseHeaders),
      content: { size: x.responseSize, mimeType: headerOf(responseHeaders, 'content-type') ?? '', ...x.responseBody },
      redirectURL: headerOf(responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: answered ? x.responseSize : -1,
    },
    cache: {},
    // One span is measured, from the request's arrival to the end of its answer.
    timings: { send: 0, wait: x.durationMs, receive: 0 },
  };
}

export type HarExchange = ReturnType<typeof harExchange>;

function toHarEntry(seq: number, r: JournalRecord, scheme: string) {
  const requestHeaders = maskedRequestHeaders(r);
  const host = headerOf(requestHeaders, 'host') ?? 'localhost';
  const queryPairs = r.query === undefined ? [] : maskedQueryPairs(r.query);
  const query = queryPairs.length > 0 ? `?${new URLSearchParams(queryPairs).toString()}` : '';
  const requestBody = bodyView(r.body, r.omittedBodyBytes);
  return {
    ...harExchange({
      startedMs: r.realMs - r.durationMs,
      durationMs: r.durationMs,
      method: r.method,
      url: `${scheme}://${host}${maskCardNumbersIn(r.path)}${query}`,
      requestHeaders,
      queryPairs,
      requestBody: requestBody === undefined ? undefined : contentOf(requestBody),
      // As sent: a compressed body's Content-Length, else the size of the text.
      requestBodySize: r.contentLength !== undefined && /^[0-9]+$/.test(r.contentLength) ? Number(r.contentLength) : sizeOf(r.body, r.omittedBodyBytes),
      status: r.status,
      responseHeaders: maskedResponseHeaders(r),
      answered: r.responseHeaders !== undefined,
      responseBody: contentOf(bodyView(r.responseBody, r.omittedResponseBytes)),
      responseSize: sizeOf(r.responseBody, r.omittedResponseBytes),
    }),
    // token-sim's own fields (HAR allows custom fields that start with `_`).
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
export function toHar(records: readonly JournalSelection[], count: number, version: string, scheme: 'http' | 'https') {
  return {
    log: {
      version: '1.2',
      creator: { name: 'token-sim', version },
      entries: records.map(({ seq, record }) => toHarEntry(seq, record, scheme)),
      // How many journal entries pass the filter (the entries may be fewer, with `limit`).
      _count: count,
    },
  };
}

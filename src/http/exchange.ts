/**
 * One API request in flight (api.ts): what the journal and the log will say about it, how it is answered
 * (`send`, `fail`), and what is recorded when its socket closes (`finish`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Journal, Operation } from '../control/journal.js';
import type { Metrics } from '../control/metrics.js';
import type { Clock } from '../domain/ports.js';
import type { Correlation } from './correlation.js';
import { renderError } from './errors.js';
import type { ApiResponse } from './operations/types.js';
import { elapsedMs, type RequestLogger } from './request-log.js';

/** What an exchange needs of the simulator to answer and record a request. */
export interface ExchangeDeps {
  journal: Journal;
  /** Counts each request as the journal records it (GET /_sim/metrics). */
  metrics: Metrics;
  clock: Clock;
  /** The correlation header (its name follows the vendor) and the id of a request. */
  correlation: Correlation;
  log: RequestLogger | undefined;
  reportUnexpected: (err: unknown) => void;
}

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly operation: Operation;
  readonly path: string;
  readonly correlationId: string;
  readonly started: number;
  tenant: string | undefined;
  rule: string | null;
  errorName: string | undefined;
  fault: string | undefined;
  body: string | undefined;
  /** What was answered, for the journal. */
  response: ApiResponse | undefined;
  /** The answer of work done that a `lostAnswer` rule kept from the client (the journal shows it). */
  lost: { as: string; response: ApiResponse } | undefined;
}

/** The headers every answer carries besides its correlation header: no MIME sniffing, no caching. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;
const SECURITY_HEADER_LIST: readonly string[] = Object.entries(SECURITY_HEADERS).flat();

const str = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

export function begin(deps: ExchangeDeps, req: IncomingMessage, res: ServerResponse, operation: Operation): Exchange {
  const ex: Exchange = {
    req,
    res,
    operation,
    path: pathOf(req.url ?? '/'),
    correlationId: deps.correlation.idOf(req),
    started: performance.now(),
    tenant: undefined,
    rule: null,
    errorName: undefined,
    fault: undefined,
    body: undefined,
    response: undefined,
    lost: undefined,
  };
  // 'close' follows every answer; a fault, or a client that gave up, closes unanswered (status 0).
  res.once('close', () => finish(deps, ex));
  return ex;
}

function finish(deps: ExchangeDeps, ex: Exchange): void {
  const { res } = ex;
  const answered = res.writableFinished;
  const durationMs = elapsedMs(ex.started);
  const errorName = answered ? ex.errorName : (ex.fault ?? 'clientClosedRequest');
  const tenant = ex.tenant ?? null;
  const h = ex.req.headers;
  const url = ex.req.url ?? '/';
  const response = answered ? ex.response : undefined;
  const status = answered ? res.statusCode : 0;
  deps.metrics.record(ex.operation, status, tenant, durationMs);
  // One object of one shape, holding only what the request and the answer already hold (no copies):
  // the journal formats and masks it when it is listed. Never the Authorization header.
  deps.journal.record({
    tenant,
    operation: ex.operation,
    method: ex.req.method ?? 'GET',
    path: ex.path,
    query: url.length > ex.path.length + 1 ? url.slice(ex.path.length + 1) : undefined,
    status,
    errorName,
    correlationId: ex.correlationId,
    virtualMs: deps.clock.now(tenant ?? ''),
    realMs: Date.now(),
    durationMs,
    rule: ex.rule,
    host: h.host,
    accept: h.accept,
    contentType: h['content-type'],
    contentEncoding: h['content-encoding'],
    contentLength: h['content-length'],
    clientCorrelationId: str(h[deps.correlation.key]),
    correlationHeader: deps.correlation.header,
    body: ex.body !== undefined && ex.body.length > 0 ? ex.body : undefined,
    sentHeaders: response && SECURITY_HEADER_LIST,
    responseHeaders: response?.headers,
    responseType: response?.mediaType,
    responseBody: response?.body,
    lostAnswer: ex.lost && { as: ex.lost.as, status: ex.lost.response.status, mediaType: ex.lost.response.mediaType, body: ex.lost.response.body },
  });
  if (answered && deps.log) deps.log({ method: ex.req.method ?? 'GET', path: ex.path, status: res.statusCode, ms: durationMs, correlationId: ex.correlationId });
}

export function send(deps: ExchangeDeps, ex: Exchange, response: ApiResponse): void {
  const { res } = ex;
  if (res.headersSent || res.destroyed) return;
  const headers: string[] = [deps.correlation.header, ex.correlationId, ...SECURITY_HEADER_LIST];
  if (response.headers) for (const name in response.headers) headers.push(name, response.headers[name] as string);
  if (response.body !== undefined) {
    headers.push('Content-Type', response.mediaType ?? 'application/json', 'Content-Length', String(Buffer.byteLength(response.body)));
  }
  res.writeHead(response.status, headers);
  res.end(response.body);
  ex.response = response;
}

export function fail(deps: ExchangeDeps, ex: Exchange, err: unknown): void {
  const rendered = renderError(err);
  if (!rendered.expected) deps.reportUnexpected(err);
  ex.errorName = rendered.body.errorName;
  send(deps, ex, { status: rendered.status, headers: rendered.headers, body: JSON.stringify(rendered.body) });
}

/** One API request in flight, answered and recorded (decision 0064); the correlation header and request log /_sim shares. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pino, stdTimeFunctions } from 'pino';
import type { LogFormat } from '../config/options.js';
import type { Journal, Operation } from '../control/journal.js';
import type { Metrics } from '../control/metrics.js';
import type { Clock } from '../domain/ports.js';
import type { IdSource } from '../infra/ids.js';
import { maskCardNumbersIn, maskCorrelationId } from '../wire/mask.js';
import { renderError } from './errors.js';
import type { ApiResponse } from './operations/types.js';

/** The vendors whose correlation header is not `Correlation-Id`, by vendor name in lower case. */
const VENDOR_HEADERS: ReadonlyMap<string, string> = new Map([['worldpay', 'WP-CorrelationId']]);

const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The correlation header, named after the vendor once per simulator (contract 3.3), and the id of a request (decision 0033). */
export class Correlation {
  readonly header: string;
  /** `header` in lower case, as node keys request headers. */
  readonly key: string;

  /** `vendor` as `--vendor` gives it (any case). */
  constructor(
    vendor: string,
    private readonly ids: IdSource,
  ) {
    this.header = VENDOR_HEADERS.get(vendor.toLowerCase()) ?? 'Correlation-Id';
    this.key = this.header.toLowerCase();
  }

  /** The client's own id when sane (so it can tie its logs to ours), else a new one; a card number in it is masked. */
  idOf(req: IncomingMessage): string {
    const given = req.headers[this.key];
    return typeof given === 'string' && SAFE_CORRELATION_ID.test(given) ? maskCorrelationId(given) : this.ids.correlationId();
  }
}

export interface LogLine {
  method: string;
  /** As requested: masked when written. */
  path: string;
  status: number;
  ms: number;
  correlationId: string;
}

export type RequestLogger = (line: LogLine) => void;

const COLOURS = { 2: '\u001b[32m', 3: '\u001b[36m', 4: '\u001b[33m', 5: '\u001b[31m' } as Record<number, string>;

function prettyLine({ method, path, status, ms, correlationId }: LogLine, color: boolean): string {
  const paint = (code: string, text: string | number): string => (color ? `${code}${text}\u001b[0m` : String(text));
  return `${method} ${path} ${paint(COLOURS[Math.floor(status / 100)] ?? '', status)} ${ms.toFixed(1)}ms ${paint('\u001b[2m', correlationId)}`;
}

/** The request log: `pretty` for people, `json` for machines (pino), or none. Paths are masked: a URL may hold a card number. */
export function createRequestLogger({ format, write, color }: { format: LogFormat; write: (line: string) => void; color: boolean }): RequestLogger | undefined {
  if (format === 'silent') return undefined;
  if (format === 'json') {
    // pino writes to our sink (the CLI's stderr, or a test's capture), synchronously: nothing is lost at exit.
    const logger = pino({ base: null, timestamp: stdTimeFunctions.isoTime, messageKey: 'msg' }, { write: (chunk: string) => write(chunk.trimEnd()) });
    return (line) => logger.info({ ...line, path: maskCardNumbersIn(line.path) }, 'request');
  }
  return (line) => write(prettyLine({ ...line, path: maskCardNumbersIn(line.path) }, color));
}

/** Milliseconds since `started` (a performance.now() reading), to the microsecond. */
const elapsedMs = (started: number): number => Math.round((performance.now() - started) * 1e3) / 1e3;

/** The logger as Express middleware, for /_sim; the id is the one the answer carries under `correlationHeader`. */
export function logMiddleware(logger: RequestLogger, correlationHeader: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method } = req;
    const path = req.originalUrl.split('?')[0] ?? '';
    res.once('finish', () => logger({ method, path, status: res.statusCode, ms: elapsedMs(started), correlationId: res.getHeader(correlationHeader) as string }));
    next();
  };
}

export interface ExchangeDeps {
  journal: Journal;
  metrics: Metrics;
  clock: Clock;
  correlation: Correlation;
  log: RequestLogger | undefined;
  reportUnexpected: (err: unknown) => void;
}

/** The headers every answer carries besides its correlation header: no MIME sniffing, no caching. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;
const SECURITY_HEADER_LIST: readonly string[] = Object.entries(SECURITY_HEADERS).flat();

const str = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

export class Exchange {
  readonly path: string;
  readonly correlationId: string;
  readonly started = performance.now();
  tenant: string | undefined = undefined;
  rule: string | null = null;
  errorName: string | undefined = undefined;
  fault: string | undefined = undefined;
  body: string | undefined = undefined;
  /** What was answered, for the journal. */
  response: ApiResponse | undefined = undefined;
  /** The answer of work done that a `lostAnswer` rule kept from the client (the journal shows it). */
  lost: { as: string; response: ApiResponse } | undefined = undefined;

  constructor(
    private readonly deps: ExchangeDeps,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly operation: Operation,
  ) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.correlationId = deps.correlation.idOf(req);
    // 'close' follows every answer; a fault, or a client that gave up, closes unanswered (status 0).
    res.once('close', () => this.finish());
  }

  private finish(): void {
    const { deps, res, req } = this;
    const answered = res.writableFinished;
    const durationMs = elapsedMs(this.started);
    const tenant = this.tenant ?? null;
    const h = req.headers;
    const url = req.url ?? '/';
    const response = answered ? this.response : undefined;
    const status = answered ? res.statusCode : 0;
    deps.metrics.record(this.operation, status, tenant, durationMs);
    // Only what the request and answer already hold (no copies), masked when listed; never the Authorization header.
    deps.journal.record({
      tenant,
      operation: this.operation,
      method: req.method ?? 'GET',
      path: this.path,
      query: url.length > this.path.length + 1 ? url.slice(this.path.length + 1) : undefined,
      status,
      errorName: answered ? this.errorName : (this.fault ?? 'clientClosedRequest'),
      correlationId: this.correlationId,
      virtualMs: deps.clock.now(tenant ?? ''),
      realMs: Date.now(),
      durationMs,
      rule: this.rule,
      host: h.host,
      accept: h.accept,
      contentType: h['content-type'],
      contentEncoding: h['content-encoding'],
      contentLength: h['content-length'],
      clientCorrelationId: str(h[deps.correlation.key]),
      correlationHeader: deps.correlation.header,
      body: this.body !== undefined && this.body.length > 0 ? this.body : undefined,
      sentHeaders: response && SECURITY_HEADER_LIST,
      responseHeaders: response?.headers,
      responseType: response?.mediaType,
      responseBody: response?.body,
      lostAnswer: this.lost && { as: this.lost.as, status: this.lost.response.status, mediaType: this.lost.response.mediaType, body: this.lost.response.body },
    });
    if (answered && deps.log) deps.log({ method: req.method ?? 'GET', path: this.path, status: res.statusCode, ms: durationMs, correlationId: this.correlationId });
  }

  send(response: ApiResponse): void {
    const { res } = this;
    if (res.headersSent || res.destroyed) return;
    const headers: string[] = [this.deps.correlation.header, this.correlationId, ...SECURITY_HEADER_LIST];
    if (response.headers) for (const name in response.headers) headers.push(name, response.headers[name] as string);
    if (response.body !== undefined) {
      headers.push('Content-Type', response.mediaType ?? 'application/json', 'Content-Length', String(Buffer.byteLength(response.body)));
    }
    res.writeHead(response.status, headers);
    res.end(response.body);
    this.response = response;
  }

  /** Answers any thrown value with the one renderer; a bug is reported too. */
  fail(err: unknown): void {
    const rendered = renderError(err);
    if (!rendered.expected) this.deps.reportUnexpected(err);
    this.errorName = rendered.body.errorName;
    this.send({ status: rendered.status, headers: rendered.headers, body: JSON.stringify(rendered.body) });
  }
}

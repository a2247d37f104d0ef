/**
 * The simulated API's request pipeline, the one path of every API request (lane.ts hands them over):
 * authentication, header checks, body, scenario step, operation, one error renderer, the journal and the
 * request log. The listener (lane.ts) only finds the route (routes.ts) and hands over node's request and response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Journal, Operation } from '../control/journal.js';
import type { Metrics } from '../control/metrics.js';
import type { Clock } from '../domain/ports.js';
import type { IdSource } from '../infra/ids.js';
import type { Authenticate } from './auth.js';
import { readBody } from './body.js';
import { HttpError, renderError } from './errors.js';
import type { ApiRoute } from './routes.js';
import { checkHeaders, type HeaderRules, type MediaTypes } from './media.js';
import type { ApiOperation, ApiOperationName, ApiResponse } from './operations/types.js';
import { elapsedMs, type RequestLogger } from './request-log.js';
import { decideScenario, type ScenarioAction, type ScenarioStepDeps } from './scenario-step.js';
import type { Correlation } from './correlation.js';

export interface ApiDeps {
  operations: Readonly<Record<ApiOperationName, ApiOperation>>;
  media: MediaTypes;
  authenticate: Authenticate;
  baseUrl: string | undefined;
  /** Where links point when neither --base-url nor a Host header says. */
  fallbackHost: string;
  scenario: ScenarioStepDeps;
  journal: Journal;
  /** Counts each request as the journal records it (GET /_sim/metrics). */
  metrics: Metrics;
  clock: Clock;
  ids: IdSource;
  /** The correlation header (its name follows the vendor) and the id of a request. */
  correlation: Correlation;
  log: RequestLogger | undefined;
  /** Sockets held open by `noResponse` faults, released at shutdown. */
  heldSockets: Set<Socket>;
  reportUnexpected: (err: unknown) => void;
  /**
   * With a shared store (decision 0039): runs the scenario step and the operation as one unit that commits
   * before anything is answered. Absent (the memory store): both run straight away.
   */
  gate?: Gate;
}

/** Runs a unit of a tenant's work and commits it (control/replica.ts). */
export interface Gate {
  run<T>(tenant: string, work: () => T): Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
}

/** What a unit decided and answered: the scenario's decision, then the operation's answer or what it threw. */
interface UnitResult {
  decision: ReturnType<typeof decideScenario>;
  response?: ApiResponse;
  error?: unknown;
}

export interface Api {
  /** Answers a request routed to `route`; `ref` is the decoded path parameter. */
  serve(req: IncomingMessage, res: ServerResponse, route: ApiRoute, ref: string | undefined): void;
  /** Answers a request for `route` (when one matched) with an error found while routing it. */
  serveError(req: IncomingMessage, res: ServerResponse, route: ApiRoute | undefined, err: unknown): void;
}

/** One request in flight: what the journal and the log will say about it. */
interface Exchange {
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
}

/** The headers every answer carries besides its correlation header: no MIME sniffing, no caching. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;
const SECURITY_HEADER_LIST: readonly string[] = Object.entries(SECURITY_HEADERS).flat();

const READS_BODY: Readonly<Record<ApiOperationName, boolean>> = {
  createToken: true,
  getToken: false,
  updateToken: true,
  deleteToken: false,
  queryTokens: false,
  sale: true,
  refund: false,
  partialRefund: true,
  reversal: false,
  paymentEvents: false,
};

const str = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

export function createApi(deps: ApiDeps): Api {
  const { media, correlation } = deps;
  const read: HeaderRules = { accept: [media.token] };
  const write: HeaderRules = { accept: [media.token], contentType: media.token };
  const payments: HeaderRules = { contentType: media.saleRequest, accept: [media.saleResponse, media.saleRequest] };
  const HEADER_RULES: Record<ApiOperationName, HeaderRules> = {
    createToken: write,
    getToken: read,
    updateToken: write,
    deleteToken: read,
    queryTokens: read,
    sale: payments,
    // The follow-ups of a sale take the sale's media types (contract 3.2); a refund or reversal has no body.
    refund: payments,
    partialRefund: payments,
    reversal: payments,
    paymentEvents: { accept: payments.accept },
  };

  function begin(req: IncomingMessage, res: ServerResponse, operation: Operation): Exchange {
    const ex: Exchange = {
      req,
      res,
      operation,
      path: pathOf(req.url ?? '/'),
      correlationId: correlation.idOf(req),
      started: performance.now(),
      tenant: undefined,
      rule: null,
      errorName: undefined,
      fault: undefined,
      body: undefined,
      response: undefined,
    };
    // 'close' follows every answer; a fault, or a client that gave up, closes unanswered (status 0).
    res.once('close', () => finish(ex));
    return ex;
  }

  function finish(ex: Exchange): void {
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
      clientCorrelationId: str(h[correlation.key]),
      correlationHeader: correlation.header,
      body: ex.body !== undefined && ex.body.length > 0 ? ex.body : undefined,
      sentHeaders: response && SECURITY_HEADER_LIST,
      responseHeaders: response?.headers,
      responseType: response?.mediaType,
      responseBody: response?.body,
    });
    if (answered && deps.log) deps.log({ method: ex.req.method ?? 'GET', path: ex.path, status: res.statusCode, ms: durationMs, correlationId: ex.correlationId });
  }

  function send(ex: Exchange, response: ApiResponse): void {
    const { res } = ex;
    if (res.headersSent || res.destroyed) return;
    const headers: string[] = [correlation.header, ex.correlationId, ...SECURITY_HEADER_LIST];
    if (response.headers) for (const name in response.headers) headers.push(name, response.headers[name] as string);
    if (response.body !== undefined) {
      headers.push('Content-Type', response.mediaType ?? 'application/json', 'Content-Length', String(Buffer.byteLength(response.body)));
    }
    res.writeHead(response.status, headers);
    res.end(response.body);
    ex.response = response;
  }

  function fail(ex: Exchange, err: unknown): void {
    const rendered = renderError(err);
    if (!rendered.expected) deps.reportUnexpected(err);
    ex.errorName = rendered.body.errorName;
    send(ex, { status: rendered.status, headers: rendered.headers, body: JSON.stringify(rendered.body) });
  }

  function perform(ex: Exchange, name: ApiOperationName, ref: string | undefined, action: ScenarioAction | undefined): void {
    if (action?.kind === 'fault') {
      ex.fault = action.fault;
      const socket = ex.req.socket;
      if (action.fault === 'connectionReset') socket.destroy();
      else {
        deps.heldSockets.add(socket);
        socket.once('close', () => deps.heldSockets.delete(socket));
      }
      return;
    }
    if (action?.kind === 'error') {
      ex.errorName = action.errorName;
      send(ex, { status: action.status, body: JSON.stringify({ errorName: action.errorName, message: action.message }) });
      return;
    }
    send(ex, operate(ex, name, ref, action));
  }

  function operate(ex: Exchange, name: ApiOperationName, ref: string | undefined, action: Extract<ScenarioAction, { kind: 'proceed' }> | undefined): ApiResponse {
    const { req } = ex;
    const host = req.headers.host;
    return deps.operations[name]({
      method: req.method ?? 'GET',
      path: ex.path,
      query: (req.url ?? '').slice(ex.path.length + 1),
      ref,
      headers: req.headers,
      body: ex.body ?? '',
      tenant: ex.tenant ?? '',
      baseUrl: deps.baseUrl ?? `http://${host ?? deps.fallbackHost}`,
      ...(action?.saleOverride && { saleOverride: action.saleOverride }),
      ...(action?.paymentScript && { paymentScript: action.paymentScript }),
    });
  }

  /**
   * With a shared store: the scenario step and the operation run as one unit, committed before the answer;
   * a scenario's delay then holds the answer (the change is already made).
   */
  function proceedShared(gate: Gate, ex: Exchange, name: ApiOperationName, ref: string | undefined): void {
    const query = name === 'queryTokens' ? (ex.req.url ?? '').slice(ex.path.length + 1) : undefined;
    const facts = { tenant: ex.tenant ?? '', operation: name, body: ex.body ?? '', ref, ...(query !== undefined && { query }) };
    gate
      .run(ex.tenant ?? '', (): UnitResult => {
        const decision = decideScenario(deps.scenario, facts);
        const action = decision?.action;
        if (action?.kind === 'fault' || action?.kind === 'error') return { decision };
        try {
          return { decision, response: operate(ex, name, ref, action) };
        } catch (error) {
          return { decision, error };
        }
      })
      .then(
        (outcome) => {
          if (!outcome.ok) {
            fail(ex, outcome.error);
            return;
          }
          const { decision, response, error } = outcome.value;
          if (decision) ex.rule = decision.rule;
          const answer = (): void => {
            const kind = decision?.action?.kind;
            if (kind === 'fault' || kind === 'error') perform(ex, name, ref, decision?.action);
            else if (response) send(ex, response);
            else fail(ex, error);
          };
          if (decision && decision.delayMs > 0) setTimeout(answer, decision.delayMs);
          else answer();
        },
        (err: unknown) => fail(ex, err),
      );
  }

  /** After the body: the scenario step (maybe late), then the operation. */
  function proceed(ex: Exchange, name: ApiOperationName, ref: string | undefined): void {
    if (deps.gate) {
      proceedShared(deps.gate, ex, name, ref);
      return;
    }
    const query = name === 'queryTokens' ? (ex.req.url ?? '').slice(ex.path.length + 1) : undefined;
    const decision = decideScenario(deps.scenario, { tenant: ex.tenant ?? '', operation: name, body: ex.body ?? '', ref, ...(query !== undefined && { query }) });
    if (!decision) {
      perform(ex, name, ref, undefined);
      return;
    }
    ex.rule = decision.rule;
    if (decision.delayMs <= 0) {
      perform(ex, name, ref, decision.action);
      return;
    }
    setTimeout(() => {
      try {
        perform(ex, name, ref, decision.action);
      } catch (err) {
        fail(ex, err);
      }
    }, decision.delayMs);
  }

  return {
    serve(req, res, route, ref) {
      const name = route.methods[req.method ?? ''];
      const ex = begin(req, res, name ?? 'unknown');
      try {
        if (name === undefined) {
          throw new HttpError('methodNotAllowed', `${req.method ?? ''} is not allowed here; use ${route.allow}`, { headers: { Allow: route.allow } });
        }
        const tenant = deps.authenticate(req.headers.authorization);
        if (tenant === undefined) {
          throw new HttpError('accessDenied', 'The credentials are missing, malformed or wrong', { headers: { 'WWW-Authenticate': 'Basic realm="token-sim"' } });
        }
        ex.tenant = tenant;
        checkHeaders(HEADER_RULES[name], req.headers);
        if (!READS_BODY[name]) {
          proceed(ex, name, ref);
          return;
        }
        readBody(req).then(
          (body) => {
            ex.body = body.toString('utf8');
            try {
              proceed(ex, name, ref);
            } catch (err) {
              fail(ex, err);
            }
          },
          (err: unknown) => fail(ex, err),
        );
      } catch (err) {
        fail(ex, err);
      }
    },

    serveError(req, res, route, err) {
      const ex = begin(req, res, route?.methods[req.method ?? ''] ?? 'unknown');
      fail(ex, err);
    },
  };
}

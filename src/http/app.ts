/**
 * The control app: the control API (/_sim), its dashboard and the OpenAPI document, on Express. The simulator's
 * one listener (lane.ts) hands it the /_sim requests; the simulated API never goes through it (decision 0046).
 * Built from one simulator's dependencies, never listening by itself.
 */
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { SECURITY_HEADERS, logMiddleware, type Correlation, type RequestLogger } from './exchange.js';
import { urlInvalid } from './routes.js';
import { createControlRoutes } from './admin/routes.js';
import type { ControlRoutesDeps } from './admin/context.js';
import { renderError, type RenderedError } from './errors.js';
import { schemeOf, type Guard } from './guard.js';
import { serveUi } from './ui.js';

/** The control routes' dependencies (admin/context.ts), and what the app around them needs. */
export interface AppDeps extends Omit<ControlRoutesDeps, 'baseUrlOf' | 'openApi'> {
  /** The correlation header, the API's: /_sim answers carry it under the same name (decision 0033). */
  correlation: Correlation;
  log: RequestLogger | undefined;
  baseUrl: string | undefined;
  fallbackHost: string;
  openApi: (baseUrl: string) => unknown;
  reportUnexpected: (err: unknown) => void;
  /** With a shared store (decision 0039): control changes commit before they answer, reads pull first. */
  shared?: ControlGate;
  /** The Host check and /_sim's cross-site write rules (decision 0042). */
  guard: Guard;
}

/** A shared store's control side (store/redis/replica.ts). */
export interface ControlGate {
  control<T>(work: () => Promise<T>): Promise<T>;
  read(): Promise<void>;
}

/** Paths that neither read nor change the state: no pull, no lock. */
const STATELESS = new Set(['/health', '/openapi.json', '/requests/stream']);

/**
 * With a shared store, every /_sim call that may change the state runs under the store's lock with its answer
 * held until the change is committed (a client that saw it answered sees it from every process); a read
 * pulls the other processes' changes first. Redis unreachable: 503 serviceUnavailable.
 */
function sharedState(gate: ControlGate): RequestHandler {
  return (req, res, next) => {
    if (STATELESS.has(req.path)) {
      next();
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      gate.read().then(() => next(), next);
      return;
    }
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let held: unknown[] = [];
    gate
      .control(
        () =>
          new Promise<void>((resolve) => {
            res.end = ((...args: unknown[]) => {
              held = args;
              resolve();
              return res;
            }) as Response['end'];
            // A client gone before its answer (a flush it stopped waiting for) is answered nothing: the change
            // commits and the lock goes now, not never.
            res.once('close', resolve);
            next();
          }),
      )
      .then(
        () => {
          res.end = end as Response['end'];
          end(...held);
        },
        (err: unknown) => {
          res.end = end as Response['end'];
          endWithError(res, renderError(err), end);
        },
      );
  };
}

/** Control responses carry the correlation header (the client's own id when sane) and the security headers too. */
function commonHeaders(correlation: Correlation): RequestHandler {
  return (req, res, next) => {
    res.setHeader(correlation.header, correlation.idOf(req));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  };
}

/** The control API's errors, with the same renderer as the API's. */
function controlErrors(reportUnexpected: (err: unknown) => void): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const rendered = renderError(err instanceof URIError ? urlInvalid() : err);
    if (!rendered.expected) reportUnexpected(err);
    endWithError(res, rendered, (body) => res.end(body));
  };
}

/** Answers a rendered error through `end`; an answer already begun is only ended. */
function endWithError(res: Response, rendered: RenderedError, end: (body?: string) => unknown): void {
  if (res.headersSent) {
    end();
    return;
  }
  const body = JSON.stringify(rendered.body);
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.statusCode = rendered.status;
  res.setHeader('Content-Type', 'application/json');
  // Its own length over any set before the error (removing that header would send the body chunked); none set:
  // node adds it, after the others.
  if (res.hasHeader('Content-Length')) res.setHeader('Content-Length', Buffer.byteLength(body));
  end(body);
}

export function buildApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  const baseUrlOf = (req: Request): string => deps.baseUrl ?? `${schemeOf(req)}://${req.headers.host ?? deps.fallbackHost}`;
  const control = express.Router();
  control.use(commonHeaders(deps.correlation));
  if (deps.log) control.use(logMiddleware(deps.log, deps.correlation.header));
  // Before any state is read or locked: a foreign Host, a write another site could have sent (decision 0042).
  control.use((req, res, next) => {
    const refused = deps.guard.checkHost(req.headers.host) ?? deps.guard.checkControl(req, req.path.toLowerCase().replace(/(.)\/$/, '$1'));
    if (refused) next(refused);
    else if (!deps.guard.cors(req, res)) next();
  });
  if (deps.shared) control.use(sharedState(deps.shared));
  control.use(createControlRoutes({ ...deps, baseUrlOf, openApi: (req) => deps.openApi(baseUrlOf(req)) }));
  control.use(controlErrors(deps.reportUnexpected));
  // The dashboard's page and assets: open, ahead of the control API's checks (decision 0035), but not to a
  // foreign Host.
  app.use((req, res, next) => {
    if (!(req.path.startsWith('/_sim/ui') && deps.guard.checkHost(req.headers.host) === undefined && serveUi(req, res, req.path))) next();
  });
  app.use('/_sim', control);

  return app;
}

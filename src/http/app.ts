/**
 * The Express adapter: the control API (/_sim), the OpenAPI document, and the simulated API through
 * Express's router (for supertest and for whatever the node:http lane hands over). Built from one
 * simulator's dependencies, never listening by itself.
 */
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Controller } from '../control/controller.js';
import type { Metrics } from '../control/metrics.js';
import type { RefCodec } from '../infra/refs.js';
import type { WebhookDispatcher } from '../infra/webhooks.js';
import { SECURITY_HEADERS, type Api } from './api.js';
import type { Correlation } from './correlation.js';
import type { Authenticate } from './auth.js';
import { API_ROUTES, matchApiPath, urlInvalid } from './routes.js';
import { createControlRoutes, type StoreHealth } from './control-routes.js';
import type { DashboardDeps } from './control-dashboard.js';
import { HttpError, renderError } from './errors.js';
import type { Guard } from './guard.js';
import { logMiddleware, type RequestLogger } from './request-log.js';
import { redirectToUi, serveUi, wantsHtml } from './ui.js';

export interface AppDeps {
  api: Api;
  controller: Controller;
  refs: RefCodec;
  /** The correlation header, the API's: /_sim answers carry it under the same name (decision 0033). */
  correlation: Correlation;
  log: RequestLogger | undefined;
  baseUrl: string | undefined;
  fallbackHost: string;
  adminToken: string | undefined;
  /** The largest snapshot `PUT /_sim/state` takes, in bytes. */
  stateLimit: number;
  isTenant: (name: string) => boolean;
  /** The API's Basic check, shared with /_sim (a tenant's own control plane). */
  authenticate: Authenticate;
  openApi: (baseUrl: string) => unknown;
  metrics: Metrics;
  /** The webhook delivery log and queue: `/_sim/webhooks` (decision 0030). */
  webhooks: WebhookDispatcher;
  /** What the dashboard's /_sim calls need: payments, the vault, the journal's streams (decision 0034). */
  dashboard: Omit<DashboardDeps, 'controller'>;
  reportUnexpected: (err: unknown) => void;
  /** Where the state lives, for /_sim/health. */
  storeHealth: () => Promise<StoreHealth>;
  /** With a shared store (decision 0039): control changes commit before they answer, reads pull first. */
  shared?: ControlGate;
  /** The Host check and /_sim's cross-site write rules (decision 0042). */
  guard: Guard;
}

/** A shared store's control side (control/replica.ts). */
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
          const rendered = renderError(err);
          if (res.headersSent) {
            end();
            return;
          }
          res.removeHeader('Content-Length');
          for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
          res.statusCode = rendered.status;
          res.setHeader('Content-Type', 'application/json');
          end(JSON.stringify(rendered.body));
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
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.statusCode = rendered.status;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(rendered.body));
  };
}

export function buildApp(deps: AppDeps): Express {
  const { api } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  const baseUrlOf = (req: Request): string => deps.baseUrl ?? `http://${req.headers.host ?? deps.fallbackHost}`;
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
  control.use(
    createControlRoutes({
      controller: deps.controller,
      refs: deps.refs,
      baseUrlOf,
      adminToken: deps.adminToken,
      isTenant: deps.isTenant,
      authenticate: deps.authenticate,
      stateLimit: deps.stateLimit,
      openApi: (req) => deps.openApi(baseUrlOf(req)),
      metrics: deps.metrics,
      webhooks: deps.webhooks,
      dashboard: deps.dashboard,
      storeHealth: deps.storeHealth,
    }),
  );
  control.use(controlErrors(deps.reportUnexpected));
  // Every request names an allowed Host (decision 0042): /_sim answers a refusal itself, the rest the API's way.
  app.use((req, res, next) => {
    const refused = req.path.startsWith('/_sim') ? undefined : deps.guard.checkHost(req.headers.host);
    if (refused) api.serveError(req, res, matchApiPath(req.path)?.route, refused);
    else next();
  });
  // The dashboard's page and assets: open, ahead of the control API's checks (decision 0035), but not to a
  // foreign Host.
  app.use((req, res, next) => {
    if (!(req.path.startsWith('/_sim/ui') && deps.guard.checkHost(req.headers.host) === undefined && serveUi(req, res, req.path))) next();
  });
  app.use('/_sim', control);

  for (const route of API_ROUTES) {
    const handler: RequestHandler = (req, res) => api.serve(req, res, route, typeof req.params.ref === 'string' ? req.params.ref : undefined);
    const methods = app.route(route.pattern);
    // The route's own methods (GET answers HEAD too), then every other method, which the pipeline answers 405.
    for (const method of Object.keys(route.methods)) if (method !== 'HEAD') methods[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](handler);
    methods.all(handler);
  }
  // A browser opening the simulator's root lands on the dashboard; API clients keep the 404 below. Like the
  // dashboard's files, not an API route: the OpenAPI document describes the JSON APIs only (decision 0035).
  app.use((req, res, next) => {
    if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req)) redirectToUi(res);
    else next();
  });
  // Anything else is not an endpoint; the pipeline answers it (journal, log, headers) like any API request.
  app.use((req, res) => api.serveError(req, res, undefined, new HttpError('endpointNotFound', `There is no endpoint at ${req.method} ${req.path}`)));
  // The router could not percent-decode a path parameter.
  const routingError: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    api.serveError(req, res, matchApiPath(req.path)?.route, err instanceof URIError ? urlInvalid() : err);
  };
  app.use(routingError);
  return app;
}

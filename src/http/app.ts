/** The control app on Express: /_sim and the dashboard's files (decision 0035), never the simulated API (decision 0046). */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { SECURITY_HEADERS, logMiddleware, type Correlation, type RequestLogger } from './exchange.js';
import { urlInvalid } from './routes.js';
import { createControlRoutes, pathOf } from './admin/routes.js';
import type { ControlRoutesDeps } from './admin/context.js';
import { HttpError, renderError, type RenderedError } from './errors.js';
import { schemeOf, type Guard } from './guard.js';
import type { StoreSet } from '../store/stores.js';

/** The control routes' dependencies (admin/context.ts), and what the app around them needs. */
export interface AppDeps extends Omit<ControlRoutesDeps, 'baseUrlOf'> {
  /** The API's correlation header: /_sim answers carry it too (decision 0033). */
  correlation: Correlation;
  log: RequestLogger | undefined;
  baseUrl: string | undefined;
  fallbackHost: string;
  reportUnexpected: (err: unknown) => void;
  shared?: Pick<NonNullable<StoreSet['replica']>, 'control' | 'read'>;
  /** The Host check and /_sim's cross-site write rules (decision 0042). */
  guard: Guard;
}

/** Paths that neither read nor change the state: no pull, no lock. */
const STATELESS = new Set(['/health', '/openapi.json', '/requests/stream']);

/** With a shared store (decision 0039): a change runs under the lock, its answer held until committed; a read pulls first. */
function sharedState(gate: NonNullable<AppDeps['shared']>): RequestHandler {
  return (req, res, next) => {
    if (STATELESS.has(req.path)) return next();
    if (req.method === 'GET' || req.method === 'HEAD') {
      gate.read().then(() => next(), next);
      return;
    }
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let held: unknown[] = [];
    const hold = (resolve: () => void): void => {
      res.end = ((...args: unknown[]) => {
        held = args;
        resolve();
        return res;
      }) as Response['end'];
      // A client gone before its answer is answered nothing: the change commits and the lock goes now.
      res.once('close', resolve);
      next();
    };
    gate
      .control(() => new Promise<void>(hold))
      .finally(() => (res.end = end as Response['end']))
      .then(
        () => end(...held),
        (err: unknown) => endWithError(res, renderError(err), end),
      );
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
  // A Content-Length set before the error gets the body's (removing it would send the body chunked); none set:
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
  control.use((req, res, next) => {
    res.setHeader(deps.correlation.header, deps.correlation.idOf(req));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  });
  if (deps.log) control.use(logMiddleware(deps.log, deps.correlation.header));
  // Before any state is read or locked: a foreign Host, a write another site could have sent (decision 0042).
  control.use((req, res, next) => {
    const refused = deps.guard.checkHost(req.headers.host) ?? deps.guard.checkControl(req, pathOf(req));
    if (refused) next(refused);
    else if (!deps.guard.cors(req, res)) next();
  });
  if (deps.shared) control.use(sharedState(deps.shared));
  control.use(createControlRoutes({ ...deps, baseUrlOf }));
  control.use(((err: unknown, _req, res, _next) => {
    const rendered = renderError(err instanceof URIError ? urlInvalid() : err);
    if (!rendered.expected) deps.reportUnexpected(err);
    endWithError(res, rendered, (body) => res.end(body));
  }) satisfies ErrorRequestHandler);
  // The dashboard's files: open, ahead of the control API's checks (decision 0035), but not to a foreign Host.
  app.use((req, res, next) => {
    if (!(req.path.startsWith('/_sim/ui') && deps.guard.checkHost(req.headers.host) === undefined && serveUi(req, res, req.path))) next();
  });
  app.use('/_sim', control);
  return app;
}

/** The page's only sources are its own files on this simulator; no inline script or style, no frames. */
const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const cache = new Map<string, Buffer>();

/** A built file of dist/ui beside dist/http or dist/cjs (whose bundle's `import.meta.url` is itself); from src/, of dist/ui. */
function fileOf(name: string): Buffer | undefined {
  if (!cache.has(name)) {
    const dir = ['../ui/', '../../dist/ui/'].map((rel) => fileURLToPath(new URL(rel, import.meta.url))).find((d) => existsSync(`${d}app.js`));
    if (dir !== undefined && existsSync(dir + name)) cache.set(name, readFileSync(dir + name));
  }
  return cache.get(name);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string, head: boolean): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries({ ...SECURITY_HEADERS, ...headers })) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}

/** Answers `GET`/`HEAD` of `/_sim/ui`, `/_sim/ui/` and `/_sim/ui/<file>`; `false` for anything else, left to the control API. */
function serveUi(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const head = req.method === 'HEAD';
  const rest = path === '/_sim/ui' || path === '/_sim/ui/' ? 'index.html' : path.startsWith('/_sim/ui/') ? path.slice('/_sim/ui/'.length) : undefined;
  if (rest === undefined) return false;
  const type = FILES[rest];
  const body = type === undefined ? undefined : fileOf(rest);
  if (type === undefined || body === undefined) {
    const message = type === undefined ? `There is no dashboard file at ${path}` : 'The dashboard is not built: run `npm run build` (scripts/build-ui.mjs writes dist/ui)';
    const rendered = renderError(new HttpError('endpointNotFound', message));
    send(res, rendered.status, { ...rendered.headers, 'Content-Type': 'application/json' }, JSON.stringify(rendered.body), head);
    return true;
  }
  send(res, 200, { 'Content-Type': type, 'Content-Security-Policy': UI_CSP, 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' }, body, head);
  return true;
}

/** Whether a request is a browser's page load: its `Accept` names `text/html`. */
export const wantsHtml = (req: IncomingMessage): boolean => /\btext\/html\b/i.test(req.headers.accept ?? '');

/** `GET /` from a browser: 303 to the dashboard. */
export function redirectToUi(res: ServerResponse): void {
  send(res, 303, { Location: '/_sim/ui', 'Content-Type': 'text/plain; charset=utf-8' }, 'See /_sim/ui\n', false);
}

/**
 * The dashboard's static files (`GET /_sim/ui`, decision 0035): the page and its assets, built by
 * scripts/build-ui.mjs into dist/ui/, served without authentication (they hold no data: the page reads
 * everything through /_sim with the caller's own credentials), with exact content types, `nosniff` and a
 * strict Content-Security-Policy. And a browser's `GET /` is sent there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './exchange.js';
import { HttpError, renderError } from './errors.js';

/** The page's only sources are its own files on this simulator; no inline script or style, no frames. */
export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * Where the built files are: dist/ui beside dist/http (and beside dist/cjs, whose bundle resolves
 * `import.meta.url` to itself), or, when the simulator runs from src/ (tests, ts-node), the built dist/ui.
 */
function uiDir(): string | undefined {
  for (const rel of ['../ui/', '../../dist/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}app.js`)) return dir;
  }
  return undefined;
}

const cache = new Map<string, Buffer>();

function fileOf(name: string): Buffer | undefined {
  let body = cache.get(name);
  if (body) return body;
  const dir = uiDir();
  if (dir === undefined || !existsSync(dir + name)) return undefined;
  body = readFileSync(dir + name);
  cache.set(name, body);
  return body;
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string, head: boolean): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries({ ...SECURITY_HEADERS, ...headers })) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}

function notFound(req: IncomingMessage, res: ServerResponse, message: string): void {
  const rendered = renderError(new HttpError('endpointNotFound', message));
  send(res, rendered.status, { ...rendered.headers, 'Content-Type': 'application/json' }, JSON.stringify(rendered.body), req.method === 'HEAD');
}

/**
 * Answers `GET`/`HEAD` of `/_sim/ui`, `/_sim/ui/` and `/_sim/ui/<file>`; `false` for anything else (another
 * method, another path), which the control API answers as usual.
 */
export function serveUi(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const head = req.method === 'HEAD';
  const rest = path === '/_sim/ui' || path === '/_sim/ui/' ? 'index.html' : path.startsWith('/_sim/ui/') ? path.slice('/_sim/ui/'.length) : undefined;
  if (rest === undefined) return false;
  const type = FILES[rest];
  if (type === undefined) {
    notFound(req, res, `There is no dashboard file at ${path}`);
    return true;
  }
  const body = fileOf(rest);
  if (body === undefined) {
    notFound(req, res, 'The dashboard is not built: run `npm run build` (scripts/build-ui.mjs writes dist/ui)');
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

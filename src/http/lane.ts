/**
 * The one request listener of a simulator (decision 0046): every request of the simulated API goes from
 * node's request listener through the pipeline (api.ts), with no framework on its path; the control API
 * (`/_sim`, its dashboard included) is handed to the control app. What `startSimulator` serves, and what
 * supertest drives.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Api } from './api.js';
import { HttpError } from './errors.js';
import type { Guard } from './guard.js';
import { decodeRef, matchApiPath } from './routes.js';
import { redirectToUi, wantsHtml } from './ui.js';

/**
 * The path of a request target as a router reads it: without query or fragment; an absolute-form target
 * (`http://host/tokens`) gives its path.
 */
export function pathOf(url: string): string {
  let end = url.length;
  const query = url.indexOf('?');
  if (query !== -1) end = query;
  const hash = url.indexOf('#');
  if (hash !== -1 && hash < end) end = hash;
  const path = url.slice(0, end);
  if (path.charCodeAt(0) === 47) return path;
  return URL.canParse(url) ? new URL(url).pathname : path;
}

/** Whether a path is the control API's: `/_sim` and below, in any case (as Express mounts it). */
const isControlPath = (path: string): boolean => path.length >= 5 && path.slice(0, 5).toLowerCase() === '/_sim' && (path.length === 5 || path.charCodeAt(5) === 47);

export function createListener(api: Api, guard: Guard, control: (req: IncomingMessage, res: ServerResponse) => void): RequestListener {
  return (req, res) => {
    const path = pathOf(req.url ?? '');
    if (isControlPath(path)) {
      control(req, res);
      return;
    }
    const match = matchApiPath(path);
    const refused = guard.checkHost(req.headers.host);
    if (refused) {
      api.serveError(req, res, match?.route, refused);
      return;
    }
    if (match) {
      let ref: string | undefined;
      try {
        ref = match.rawRef === undefined ? undefined : decodeRef(match.rawRef);
      } catch (err) {
        api.serveError(req, res, match.route, err);
        return;
      }
      api.serve(req, res, match.route, ref);
      return;
    }
    // A browser opening the simulator's root lands on the dashboard; API clients get the 404 below. Not an API
    // route: the OpenAPI document describes the JSON APIs only (decision 0035).
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req)) {
      redirectToUi(res);
      return;
    }
    // Anything else is not an endpoint; the pipeline answers it (journal, log, headers) like any API request.
    api.serveError(req, res, undefined, new HttpError('endpointNotFound', `There is no endpoint at ${req.method} ${path}`));
  };
}

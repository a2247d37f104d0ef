/**
 * The node:http adapter: the simulated API straight from node's request listener, off the framework's hot
 * path. It takes the requests whose path it matches exactly as Express would; everything else (the control
 * API, unknown paths, unusual request targets) goes to the Express app, which answers the same way.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Api } from './api.js';
import type { Guard } from './guard.js';
import { decodeRef, matchApiPath } from './routes.js';

export function createLane(api: Api, guard: Guard, fallback: (req: IncomingMessage, res: ServerResponse) => void): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    if (url.charCodeAt(0) === 47 && url.charCodeAt(1) !== 95 && !url.includes('#')) {
      const q = url.indexOf('?');
      const match = matchApiPath(q === -1 ? url : url.slice(0, q));
      if (match) {
        const refused = guard.checkHost(req.headers.host);
        if (refused) {
          api.serveError(req, res, match.route, refused);
          return;
        }
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
    }
    fallback(req, res);
  };
}

/** The /_sim routes, from the control table: the open and admin-only rows, then `authorize`, then the other rows. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import { HttpError } from '../errors.js';
import { checkQueryParams } from '../control-query.js';
import { outsideScope, serve, tenantOf, type ControlContext, type ControlRoutesDeps, type RowCall } from './context.js';
import { CONTROL_TABLE, documentedPath, type ControlOperation } from './table.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const matches = (given: string, expected: Buffer): boolean => timingSafeEqual(digest(given), expected);

/** Express matches paths case-insensitively and with a trailing slash: so do the checks on them. */
export const pathOf = (req: Request): string => req.path.toLowerCase().replace(/(.)\/$/, '$1');

/** The paths of these rows as one pattern (lower case; a path parameter is any one segment). */
const pathsOf = (ops: readonly ControlOperation[]): RegExp =>
  new RegExp(`^(?:${[...new Set(ops.map((op) => op.path.toLowerCase().replace(/:\w+/g, '[^/]+').replace(/\./g, '\\.')))].join('|')})$`);

/** Bearer check in constant time (comparing digests, so the length of the token does not leak either). */
function checkBearer(req: Request, expected: Buffer): void {
  const given = /^Bearer +(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!given || !matches(given, expected)) {
    throw new HttpError('accessDenied', 'The control API needs Authorization: Bearer <admin token>', {
      headers: { 'WWW-Authenticate': 'Bearer realm="token-sim"' },
    });
  }
}

/** A tenant's Basic credentials open its own rows, the tenant kept in `scopes` (decision 0026); else the admin token, when set. */
function authorize(ctx: ControlContext): RequestHandler {
  const tenantPaths = pathsOf(CONTROL_TABLE.filter((op) => op.access === 'tenant' || op.access === 'stream'));
  const streamPaths = pathsOf(CONTROL_TABLE.filter((op) => op.access === 'stream'));
  const expected = ctx.adminToken === undefined ? undefined : digest(ctx.adminToken);
  return (req, _res, next) => {
    const authorization = req.headers.authorization;
    if (authorization !== undefined && /^ *basic( |$)/i.test(authorization)) {
      const tenant = ctx.authenticate(authorization);
      if (tenant === undefined) {
        throw new HttpError('accessDenied', 'These Basic credentials are not a configured username and password', {
          headers: { 'WWW-Authenticate': 'Basic realm="token-sim"' },
        });
      }
      if (!tenantPaths.test(pathOf(req))) throw outsideScope(tenant);
      ctx.scopes.set(req, tenant);
    } else if (expected !== undefined) {
      const given: unknown = req.query.access_token;
      if (!(streamPaths.test(pathOf(req)) && typeof given === 'string' && matches(given, expected))) checkBearer(req, expected);
    }
    next();
  };
}

/** The routes of these rows, each path answering the methods of no row 405 with its `Allow`. */
function addRows(router: Router, ctx: ControlContext, ops: readonly ControlOperation[]): void {
  const paths = [...new Set(ops.map((op) => op.path))];
  for (const path of paths) {
    const rows = ops.filter((op) => op.path === path);
    const route = router.route(path);
    for (const op of rows) {
      const where = `${op.method} ${documentedPath(op)}`;
      const expected = op.access === 'admin' && ctx.adminToken !== undefined ? digest(ctx.adminToken) : undefined;
      const handle = op.handle ?? serve(op.call as RowCall);
      route[op.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete']((req, res) => {
        if (expected !== undefined) checkBearer(req, expected);
        const tenant = op.tenant ? tenantOf(ctx, req) : undefined;
        if (op.tenant === 'required' && tenant === undefined) {
          throw new HttpError('urlInvalid', `${where} needs ?tenant=`, { problems: [{ errorName: 'fieldIsMissing', message: 'tenant is required: the configured username the payment or token belongs to' }] });
        }
        if (op.query) checkQueryParams(req.query, op.query, where);
        return handle(ctx, { tenant, where }, req, res);
      });
    }
    const allow = rows.map((op) => op.method).join(', ');
    route.all((req) => {
      throw new HttpError('methodNotAllowed', `${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } });
    });
  }
}

export function createControlRoutes(deps: ControlRoutesDeps): Router {
  const ctx: ControlContext = { ...deps, scopes: new WeakMap() };
  const ahead = CONTROL_TABLE.filter((op) => op.access === 'open' || op.access === 'admin');
  const router = Router();
  addRows(router, ctx, ahead);
  router.use(authorize(ctx));
  addRows(router, ctx, CONTROL_TABLE.filter((op) => !ahead.includes(op)));
  router.all('/{*rest}', (req) => {
    throw new HttpError('endpointNotFound', `There is no control endpoint at ${req.method} ${req.originalUrl.split('?')[0] ?? ''}`);
  });
  return router;
}

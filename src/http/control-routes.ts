/** The control API, mounted at /_sim: JSON in and out, the standard error body, `?tenant=` to name one tenant. */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Controller } from '../control/controller.js';
import { advanceMs } from '../domain/duration.js';
import type { RefCodec } from '../infra/refs.js';
import { parseScenarioText, scenarioPaths, validateScenarios } from '../scenarios/loader.js';
import { parseInstant } from '../wire/instant.js';
import { parseJsonText } from '../wire/json.js';
import { maskCardData } from '../wire/mask.js';
import { fieldError } from '../wire/problems.js';
import { clockAdvanceBody, clockSetBody } from '../wire/schemas.js';
import { parseBody } from '../wire/validation.js';
import { readBody } from './body.js';
import { HttpError } from './errors.js';
import { essence } from './media.js';
import { presentToken, type LinkContext } from './present.js';

export interface ControlRoutesDeps {
  controller: Controller;
  refs: RefCodec;
  baseUrlOf: (req: Request) => string;
  /** When set, every /_sim call but health needs `Authorization: Bearer <adminToken>`. */
  adminToken: string | undefined;
  /** Whether a username is a configured credential (a tenant). */
  isTenant: (name: string) => boolean;
  /** The OpenAPI document for a request (its base URL). */
  openApi: (req: Request) => unknown;
}

/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

/** For a known path: 405 with the methods it allows. */
function methodNotAllowed(allow: string): RequestHandler {
  return (req) => {
    throw new HttpError('methodNotAllowed', `${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } });
  };
}

const bodyText = async (req: Request): Promise<string> => (await readBody(req)).toString('utf8');
const jsonOf = async (req: Request): Promise<unknown> => parseJsonText(await bodyText(req));

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Bearer check in constant time (comparing digests, so the length of the token does not leak either). */
function requireAdminToken(adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  return (req, _res, next) => {
    const match = /^Bearer +(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      throw new HttpError('accessDenied', 'The control API needs Authorization: Bearer <admin token>', {
        headers: { 'WWW-Authenticate': 'Bearer realm="token-sim"' },
      });
    }
    next();
  };
}

/** `?tenant=<username>`, a configured credential; absent means every tenant. */
function tenantParamOf(isTenant: (name: string) => boolean): (req: Request) => string | undefined {
  return (req) => {
    const value: unknown = req.query.tenant;
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isTenant(value)) {
      throw new HttpError('urlInvalid', 'tenant must name one configured username', {
        problems: [{ errorName: 'fieldHasInvalidValue', message: `tenant must be a configured username, given once` }],
      });
    }
    return value;
  };
}

export function createControlRoutes(deps: ControlRoutesDeps): Router {
  const { controller } = deps;
  const tenantParam = tenantParamOf(deps.isTenant);
  const router = Router();
  // Health stays open: a readiness probe should not need the admin secret, and it reveals nothing.
  router.route('/health').get((_req, res) => sendJson(res, 200, { status: 'ok' })).all(methodNotAllowed('GET'));
  if (deps.adminToken !== undefined) router.use(requireAdminToken(deps.adminToken));

  router
    .route('/clock')
    .get((req, res) => sendJson(res, 200, controller.clock(tenantParam(req))))
    .put(async (req, res) => {
      const tenant = tenantParam(req);
      const body = parseBody(clockSetBody, await jsonOf(req));
      sendJson(res, 200, controller.setClock(parseInstant(body.now) ?? Number.NaN, body.frozen, tenant));
    })
    .all(methodNotAllowed('GET, PUT'));

  router
    .route('/clock/advance')
    .post(async (req, res) => {
      const tenant = tenantParam(req);
      const { by } = parseBody(clockAdvanceBody, await jsonOf(req));
      const ms = advanceMs(by, Date.parse(controller.clock(tenant).now));
      if (ms === undefined) {
        throw fieldError('fieldHasInvalidValue', ['by'], 'by must be a non-negative ISO 8601 duration (P8D) or number of milliseconds');
      }
      sendJson(res, 200, controller.advanceClock(ms, tenant));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/reset')
    .post((req, res) => {
      controller.reset(tenantParam(req));
      res.status(204).end();
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/tokens')
    .get((req, res) => {
      const ctx: LinkContext = { baseUrl: deps.baseUrlOf(req), refs: deps.refs };
      const tokens = controller.tokens(tenantParam(req)).map((t) => ({ tenant: t.tenant, ...presentToken(t, ctx) }));
      // Free text (descriptions, addresses) is shown masked here, unlike in the API's own answers.
      sendJson(res, 200, { tokens: maskCardData(tokens) });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/requests')
    .get((req, res) => sendJson(res, 200, { requests: controller.requests(tenantParam(req)) }))
    .delete((req, res) => {
      controller.clearRequests(tenantParam(req));
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, DELETE'));

  router
    .route('/state')
    .get((_req, res) => sendJson(res, 200, maskCardData(controller.exportState())))
    .put(async (req, res) => {
      controller.importState(await jsonOf(req));
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, PUT'));

  router
    .route('/scenarios')
    // Scenarios may name card numbers (`when.cardNumber`, preloaded tokens): masked like all /_sim output.
    .get((_req, res) => sendJson(res, 200, { scenarios: maskCardData(controller.scenarios()) }))
    .put(async (req, res) => {
      const yaml = YAML_TYPES.has(essence(req.headers['content-type']) ?? '');
      const text = await bodyText(req);
      const data = parseScenarioText(text, yaml ? 'yaml' : 'json');
      const scenarios = validateScenarios(data);
      controller.loadScenarios(scenarios, scenarioPaths(data, scenarios.length));
      sendJson(res, 200, { scenarios: maskCardData(controller.scenarios()) });
    })
    .delete((_req, res) => {
      controller.loadScenarios([]);
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, PUT, DELETE'));

  router.route('/openapi.json').get((req, res) => sendJson(res, 200, deps.openApi(req))).all(methodNotAllowed('GET'));

  router.all('/{*rest}', (req) => {
    throw new HttpError('endpointNotFound', `There is no control endpoint at ${req.method} ${req.originalUrl.split('?')[0] ?? ''}`);
  });

  return router;
}

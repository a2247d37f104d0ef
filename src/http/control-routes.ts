/** The control API, mounted at /_sim: JSON in and out, the standard error body, `?tenant=` to name one tenant. */
import { timingSafeEqual, createHash } from 'node:crypto';
import { once } from 'node:events';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { readAdvance, readSetClock } from '../control/clock-input.js';
import type { Controller } from '../control/controller.js';
import type { Metrics } from '../control/metrics.js';
import { positionOf } from '../control/token-pages.js';
import type { RefCodec } from '../infra/refs.js';
import type { WebhookDispatcher } from '../infra/webhooks.js';
import { parseScenarioText, scenarioPaths, validateScenarios } from '../scenarios/loader.js';
import { parseJsonText } from '../wire/json.js';
import { maskCardData } from '../wire/mask.js';
import { packageVersion } from '../config/version.js';
import type { Authenticate } from './auth.js';
import { readBody } from './body.js';
import { HttpError } from './errors.js';
import { toHar } from './har.js';
import { addDashboardRoutes, isDashboardTenantPath, streamAccessToken, type DashboardDeps } from './control-dashboard.js';
import { checkQueryParams, parseJournalQuery } from './journal-query.js';
import { essence } from './media.js';
import { isYamlType } from './guard.js';
import { WireError } from '../wire/problems.js';
import { readJournalCursor, readLimit, readTokenCursor, tokenCursor } from './paging.js';
import { controlTokenList, type LinkContext } from './present.js';
import { readFlushTimeout, readWebhookQuery } from './webhook-query.js';

export interface ControlRoutesDeps {
  controller: Controller;
  refs: RefCodec;
  baseUrlOf: (req: Request) => string;
  /** When set, every /_sim call but health needs `Authorization: Bearer <adminToken>` (or, for a tenant's own calls, its Basic credentials). */
  adminToken: string | undefined;
  /** Whether a username is a configured credential (a tenant). */
  isTenant: (name: string) => boolean;
  /** The API's Basic check: the username of valid credentials (a tenant's own control plane, decision 0026). */
  authenticate: Authenticate;
  /** The largest snapshot `PUT /_sim/state` takes, in bytes. */
  stateLimit: number;
  /** The OpenAPI document for a request (its base URL). */
  openApi: (req: Request) => unknown;
  /** What GET /_sim/metrics exposes: every tenant's, so only the admin token opens it when one is set. */
  metrics: Metrics;
  /** The webhook delivery log and queue (decision 0030). */
  webhooks: WebhookDispatcher;
  /** What the dashboard's calls need (decision 0034). */
  dashboard: Omit<DashboardDeps, 'controller'>;
  /** Where the state lives, for health: memory, or Redis and whether it answers (decision 0039). */
  storeHealth: () => Promise<StoreHealth>;
}

/** With Redis, `state: 'reset'` and `at` (wall clock) once it lost its state, until a whole reset (decision 0041). */
export type StoreHealth = { kind: 'memory' } | { kind: 'redis'; up: boolean; state?: 'reset'; at?: string };

/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

/**
 * A snapshot token with card data masked, except its lifetime: a number the simulator computes itself, which
 * may read as a card number (Luhn-valid, 12 to 19 digits) and must import back as a number.
 */
const maskTokenState = <T extends { lifetimeMs: number }>(state: T): unknown => ({ ...(maskCardData(state) as object), lifetimeMs: state.lifetimeMs });

/** Tokens per slice of a streamed snapshot: each slice is a few milliseconds of work at most. */
const STATE_SLICE = 64;

/**
 * `GET /_sim/state`, written a slice of tokens at a time, yielding to other requests between slices and
 * waiting while the client reads slowly: a snapshot of 100,000 tokens never holds the API up, nor is it
 * ever one string in memory. The parts (clocks, counters, the live tokens) are taken at one moment.
 */
async function streamState(controller: Controller, res: Response, tenant: string | undefined): Promise<void> {
  const { head, tokens, toState } = controller.exportStateParts(tenant);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  const gone = new Promise<void>((resolve) => res.once('close', resolve));
  let open = true;
  void gone.then(() => (open = false));
  // Wait for a slow reader; then always yield to the poll phase: when the socket takes each write at once,
  // 'drain' comes on the next tick, which would let the whole export run before any other request.
  const pause = async (full: boolean): Promise<void> => {
    if (full) await Promise.race([gone, once(res, 'drain')]);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  const headJson = JSON.stringify(maskCardData(head));
  res.write(`${headJson.slice(0, -1)},"tokens":[`);
  for (let i = 0; i < tokens.length && open; i += STATE_SLICE) {
    const slice = tokens.slice(i, i + STATE_SLICE).map((t) => JSON.stringify(maskTokenState(toState(t))));
    const full = !res.write(`${i === 0 ? '' : ','}${slice.join(',')}`);
    await pause(full);
  }
  if (open) res.end(']}');
}

/** For a known path: 405 with the methods it allows. */
function methodNotAllowed(allow: string): RequestHandler {
  return (req) => {
    throw new HttpError('methodNotAllowed', `${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } });
  };
}

const bodyText = async (req: Request): Promise<string> => (await readBody(req)).toString('utf8');
const jsonOf = async (req: Request): Promise<unknown> => parseJsonText(await bodyText(req));

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A scenario body as its Content-Type says; JSON that does not parse is told that YAML goes as YAML (contract 4.1). */
function parseScenarioBody(text: string, yaml: boolean): unknown {
  try {
    return parseScenarioText(text, yaml ? 'yaml' : 'json');
  } catch (err) {
    if (yaml || !(err instanceof WireError) || err.code !== 'bodyIsNotJson') throw err;
    throw new WireError('bodyIsNotJson', `${err.message}; a YAML scenario goes with Content-Type: application/yaml`);
  }
}

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

/** The calls of a tenant's own control plane (as lower-case paths under /_sim); a tenant gets 403 on any other. */
const TENANT_PATHS = new Set(['/clock', '/clock/advance', '/reset', '/tokens', '/requests', '/scenarios', '/state', '/webhooks', '/webhooks/flush', '/openapi.json']);

/** The refusal of a call outside the tenant's own control plane. */
function outsideScope(tenant: string): HttpError {
  return new HttpError('outsideTenantScope', `These credentials act on tenant '${tenant}' only; other tenants and everyone-wide calls need the admin token`);
}

/**
 * A tenant's own control plane (decision 0026): `Basic` credentials of a configured user act on that tenant
 * only, and `scopes` remembers the tenant of such a request; wrong ones are refused. Any other call goes on to
 * the admin check (with --admin-token) or stays open (without it), as before.
 */
function authorizeTenant(authenticate: Authenticate, scopes: WeakMap<Request, string>): RequestHandler {
  return (req, _res, next) => {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !/^ *basic( |$)/i.test(authorization)) {
      next();
      return;
    }
    const tenant = authenticate(authorization);
    if (tenant === undefined) {
      throw new HttpError('accessDenied', 'These Basic credentials are not a configured username and password', {
        headers: { 'WWW-Authenticate': 'Basic realm="token-sim"' },
      });
    }
    // Express matches paths case-insensitively and with a trailing slash: so does this check.
    const path = req.path.toLowerCase().replace(/(.)\/$/, '$1');
    if (!TENANT_PATHS.has(path) && !isDashboardTenantPath(path)) throw outsideScope(tenant);
    scopes.set(req, tenant);
    next();
  };
}

/** The refusal of a tenant that is not a configured username (over HTTP and in the library alike). */
export function unknownTenant(): HttpError {
  return new HttpError('urlInvalid', 'tenant must name one configured username', {
    problems: [{ errorName: 'fieldHasInvalidValue', message: `tenant must be a configured username, given once` }],
  });
}

/** `?tenant=<username>`, a configured credential; absent means every tenant. */
function tenantParamOf(isTenant: (name: string) => boolean): (req: Request) => string | undefined {
  return (req) => {
    const value: unknown = req.query.tenant;
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isTenant(value)) throw unknownTenant();
    return value;
  };
}

export function createControlRoutes(deps: ControlRoutesDeps): Router {
  const { controller } = deps;
  const named = tenantParamOf(deps.isTenant);
  /** The tenants of requests made with a tenant's Basic credentials. */
  const scopes = new WeakMap<Request, string>();
  /** The tenant a call acts on: `?tenant=`, or for a tenant's own credentials that tenant, which `?tenant=` may only repeat. */
  const tenantParam = (req: Request): string | undefined => {
    const own = scopes.get(req);
    if (own === undefined) return named(req);
    if (req.query.tenant !== undefined && req.query.tenant !== own) throw outsideScope(own);
    return own;
  };
  const router = Router();
  // Health stays open: a readiness probe should not need the admin secret, and it reveals nothing.
  // It says where the state lives; with Redis unreachable it answers 503 (contract 3.5).
  router
    .route('/health')
    .get(async (_req, res) => {
      const store = await deps.storeHealth();
      const up = store.kind === 'memory' || store.up;
      sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'unavailable', store });
    })
    .all(methodNotAllowed('GET'));
  // Metrics are every tenant's: with --admin-token, the admin token alone opens them (whatever else /_sim takes).
  router
    .route('/metrics')
    .get(...(deps.adminToken === undefined ? [] : [requireAdminToken(deps.adminToken)]), async (req, res) => {
      checkQueryParams(req.query, [], 'GET /_sim/metrics');
      const text = await deps.metrics.scrape();
      res.statusCode = 200;
      res.setHeader('Content-Type', deps.metrics.contentType);
      res.end(text);
    })
    .all(methodNotAllowed('GET'));
  router.use(authorizeTenant(deps.authenticate, scopes));
  if (deps.adminToken !== undefined) {
    // Everyone-wide calls (and calls without a tenant's credentials) need the admin token.
    const admin = requireAdminToken(deps.adminToken);
    // The live journal also takes the admin token as ?access_token=: EventSource cannot set headers (decision 0034).
    const queryToken = streamAccessToken(deps.adminToken);
    router.use((req, res, next) => (scopes.has(req) || queryToken(req) ? next() : admin(req, res, next)));
  }

  router
    .route('/clock')
    .get((req, res) => sendJson(res, 200, controller.clock(tenantParam(req))))
    .put(async (req, res) => {
      const tenant = tenantParam(req);
      const { epochMs, frozen } = readSetClock(await jsonOf(req));
      sendJson(res, 200, controller.setClock(epochMs, frozen, tenant));
    })
    .all(methodNotAllowed('GET, PUT'));

  router
    .route('/clock/advance')
    .post(async (req, res) => {
      const tenant = tenantParam(req);
      const ms = readAdvance(await jsonOf(req), Date.parse(controller.clock(tenant).now));
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
      const tenant = tenantParam(req);
      const where = 'GET /_sim/tokens';
      checkQueryParams(req.query, ['tenant', 'limit', 'cursor'], where);
      const limit = readLimit(req.query.limit, where);
      const page = controller.tokenPage(tenant, readTokenCursor(req.query.cursor, where), limit);
      const last = page.tokens.at(-1);
      const ctx: LinkContext = { baseUrl: deps.baseUrlOf(req), refs: deps.refs };
      sendJson(res, 200, { tokens: controlTokenList(page.tokens, ctx), next: page.more && last ? tokenCursor(positionOf(last)) : null });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/requests')
    // Filters, a count, and JSON or HAR 1.2 (journal-query.ts, har.ts; decision 0018).
    .get((req, res) => {
      const tenant = tenantParam(req);
      const where = 'GET /_sim/requests';
      const { cursor: cursorParam, ...query } = req.query;
      const { filter: given, format } = parseJournalQuery(query, where);
      const cursor = readJournalCursor(cursorParam, where);
      if (cursor !== undefined && given.since !== undefined) throw new HttpError('urlInvalid', 'Give since or cursor, not both', { problems: [{ errorName: 'fieldHasInvalidValue', message: 'since and cursor cannot be combined' }] });
      // One page: at most `limit` (default 1000, at most 10000) entries; `next` continues after them.
      const since = cursor ?? given.since;
      const filter = { ...given, ...(since !== undefined && { since }), limit: readLimit(query.limit, where) };
      const nextOf = (shown: number, count: number, lastSeq: number | undefined): string | null =>
        lastSeq !== undefined && count > shown ? String(lastSeq) : null;
      if (format === 'har') {
        const { records, count } = controller.requestRecords(tenant, filter);
        const har = toHar(records, count, packageVersion());
        sendJson(res, 200, { log: { ...har.log, _next: nextOf(records.length, count, records.at(-1)?.seq) } });
      } else {
        const { requests, count } = controller.requests(tenant, filter);
        sendJson(res, 200, { requests, count, next: nextOf(requests.length, count, requests.at(-1)?.seq) });
      }
    })
    .delete((req, res) => {
      const tenant = tenantParam(req);
      checkQueryParams(req.query, ['tenant'], 'DELETE /_sim/requests');
      controller.clearRequests(tenant);
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, DELETE'));

  router
    .route('/state')
    // `?tenant=` (or a tenant's own credentials): that tenant's part only, read or written (decision 0026).
    .get((req, res) => streamState(controller, res, tenantParam(req)))
    .put(async (req, res) => {
      const tenant = tenantParam(req);
      controller.importState(parseJsonText((await readBody(req, deps.stateLimit)).toString('utf8')), tenant);
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, PUT'));

  router
    .route('/scenarios')
    // `?tenant=` names a tenant's own set; without it, the global set. Scenarios may name card numbers
    // (`when.cardNumber`, preloaded tokens): masked like all /_sim output.
    .get((req, res) => sendJson(res, 200, { scenarios: maskCardData(controller.scenarios(tenantParam(req))) }))
    .put(async (req, res) => {
      const tenant = tenantParam(req);
      const yaml = isYamlType(essence(req.headers['content-type']));
      const text = await bodyText(req);
      const data = parseScenarioBody(text, yaml);
      const scenarios = validateScenarios(data);
      controller.loadScenarios(scenarios, scenarioPaths(data, scenarios.length), tenant);
      sendJson(res, 200, { scenarios: maskCardData(controller.scenarios(tenant)) });
    })
    .delete((req, res) => {
      controller.loadScenarios([], undefined, tenantParam(req));
      res.status(204).end();
    })
    .all(methodNotAllowed('GET, PUT, DELETE'));

  router
    .route('/webhooks')
    // The delivery log, paged like the journal: the oldest `limit` after `cursor`, `next` continues (decision 0030).
    .get((req, res) => {
      const tenant = tenantParam(req);
      const filter = readWebhookQuery(req.query, 'GET /_sim/webhooks');
      const { deliveries, count } = deps.webhooks.deliveries({ ...filter, ...(tenant !== undefined && { tenant }) });
      const last = deliveries.at(-1);
      sendJson(res, 200, { webhooks: deliveries, count, next: last !== undefined && count > deliveries.length ? String(last.seq) : null });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/webhooks/flush')
    // Answers once nothing (of the tenant) is queued, in flight or waiting to retry, or after `timeout` ms.
    .post(async (req, res) => {
      const tenant = tenantParam(req);
      const timeoutMs = readFlushTimeout(req.query, 'POST /_sim/webhooks/flush');
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const result = await deps.webhooks.flush({ ...(tenant !== undefined && { tenant }), timeoutMs });
      if (!gone.signal.aborted) sendJson(res, 200, result);
    })
    .all(methodNotAllowed('POST'));

  addDashboardRoutes(router, { ...deps.dashboard, controller }, tenantParam);

  router.route('/openapi.json').get((req, res) => sendJson(res, 200, deps.openApi(req))).all(methodNotAllowed('GET'));

  router.all('/{*rest}', (req) => {
    throw new HttpError('endpointNotFound', `There is no control endpoint at ${req.method} ${req.originalUrl.split('?')[0] ?? ''}`);
  });

  return router;
}

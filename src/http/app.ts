/** The Express app of one simulator: built from its dependencies, never listening by itself. */
import express, { type Express, type Request, type RequestHandler } from 'express';
import basicAuth from 'express-basic-auth';
import type { SimulatorConfig } from '../config/options.js';
import type { Socket } from 'node:net';
import type { Controller } from '../control/controller.js';
import type { Journal } from '../control/journal.js';
import { VaultError } from '../domain/errors.js';
import type { Clock } from '../domain/ports.js';
import type { Sales } from '../domain/sale.js';
import type { Vault } from '../domain/vault.js';
import type { IdSource } from '../infra/ids.js';
import type { RefCodec } from '../infra/refs.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import { createControlRoutes } from './control-routes.js';
import { packageVersion } from '../config/version.js';
import { createErrorHandler } from './errors.js';
import { openApiDocument } from './openapi.js';
import { mediaTypesFor } from './media.js';
import { recordRequests } from './record-requests.js';
import { createRequestLog, type LogWrite } from './request-log.js';
import { endpointNotFound } from './routing.js';
import { registerSaleRoutes } from './sale-routes.js';
import { scenarioStep } from './scenario-actions.js';
import { registerTokenRoutes } from './tokens-routes.js';

export interface AppDeps {
  config: SimulatorConfig;
  clock: Clock;
  vault: Vault;
  sales: Sales;
  refs: RefCodec;
  ids: IdSource;
  controller: Controller;
  journal: Journal;
  engine: ScenarioEngine;
  /** Sockets held open by `noResponse` faults. */
  heldSockets: Set<Socket>;
  logWrite: LogWrite;
  /** Colour the pretty request log (a terminal). */
  logColor: boolean;
  reportUnexpected: (err: unknown) => void;
}

const SAFE_CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries a Correlation-Id (the client's own when it sent a sane one, else a new one) and
 * the security headers.
 */
function commonHeaders(ids: IdSource): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['correlation-id'];
    const id = given !== undefined && typeof given === 'string' && SAFE_CORRELATION_ID.test(given) ? given : ids.correlationId();
    res.locals.correlationId = id;
    res.setHeader('Correlation-Id', id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

function authentication(config: SimulatorConfig): RequestHandler {
  const users: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, credential] of config.credentials) users[name] = credential.password;
  return basicAuth({
    users,
    challenge: true,
    realm: 'token-sim',
    // express-basic-auth sets WWW-Authenticate, then asks for the body: throwing here hands the 401 to
    // the one error renderer, so it gets the standard body and media type like every other error.
    unauthorizedResponse: () => {
      throw new VaultError('accessDenied', 'The credentials are missing, malformed or wrong');
    },
  });
}

/** The username express-basic-auth put on the request (it is set before the password is checked). */
const userOf = (req: Request): string | undefined => (req as Request & { auth?: { user: string } }).auth?.user;

export function buildApp(deps: AppDeps): Express {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(commonHeaders(deps.ids));
  const log = createRequestLog({ format: config.log, write: deps.logWrite, color: deps.logColor });
  if (log) app.use(log);

  const media = mediaTypesFor(config.vendor);
  const tenantOf = (req: Request): string => userOf(req) ?? '';
  const baseUrlOf = (req: Request): string => config.baseUrl ?? `http://${req.headers.host ?? `${config.host}:${config.port}`}`;
  const authenticate = authentication(config);

  const isTenant = (name: string): boolean => config.credentials.has(name);
  // Mounted at /_sim, so API requests pass the control routes with one prefix check.
  const openApi = (req: Request): unknown => openApiDocument({ vendor: config.vendor, baseUrl: baseUrlOf(req), version: packageVersion() });
  app.use('/_sim', createControlRoutes({ controller: deps.controller, refs: deps.refs, baseUrlOf, adminToken: config.adminToken, isTenant, openApi }));
  app.use(recordRequests({ journal: deps.journal, clock: deps.clock, userOf }));
  const scenarioDeps = { engine: deps.engine, clock: deps.clock, vault: deps.vault, refs: deps.refs, tenantOf, heldSockets: deps.heldSockets };
  const scenario = (operation: 'createToken' | 'getToken' | 'updateToken' | 'deleteToken' | 'sale'): RequestHandler =>
    scenarioStep(scenarioDeps, operation);
  registerTokenRoutes(app.router, { vault: deps.vault, refs: deps.refs, tokenMediaType: media.token, authenticate, tenantOf, baseUrlOf, scenario });
  registerSaleRoutes(app.router, { sales: deps.sales, refs: deps.refs, media, authenticate, tenantOf, scenario });
  app.use(endpointNotFound);
  app.use(createErrorHandler(deps.reportUnexpected));
  return app;
}

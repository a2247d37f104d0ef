/** What every /_sim handler is given: one simulator's parts, and the call as its row reads it; the answers' shared pieces. */
import type { Request, Response } from 'express';
import type { Controller } from '../../control/controller.js';
import type { Journal } from '../../control/journal.js';
import type { Metrics } from '../../control/metrics.js';
import type { Payments } from '../../domain/payments.js';
import type { PaymentStore } from '../../domain/ports.js';
import type { Vault } from '../../domain/vault.js';
import type { TenantClocks } from '../../infra/clock.js';
import type { RefCodec } from '../../infra/refs.js';
import type { WebhookDispatcher, WebhookResend } from '../../infra/webhooks.js';
import type { Authenticate } from '../auth.js';
import { HttpError } from '../errors.js';
import type { StreamHub } from '../journal-stream.js';
import type { StoreHealth } from '../../store/stores.js';
import type { MagicValues } from './magic-values.js';

/** What a row's call runs on, over HTTP and in process (facade.ts) alike: compose.ts makes them once. */
export interface CallParts {
  controller: Controller;
  refs: RefCodec;
  webhooks: WebhookDispatcher;
  /** Sends a logged delivery again (the tenant's, when named), or throws webhookNotFound (decision 0056). */
  resendWebhook: (id: string, tenant: string | undefined) => WebhookResend;
  /** With a tenant, its own scenario set's amounts too (decision 0057). */
  magicValues: (tenant: string | undefined) => MagicValues;
  isTenant: (name: string) => boolean;
  // What the dashboard's calls need besides the controller (decision 0034).
  /** The configured usernames (tenants), in configuration order. */
  tenants: () => readonly string[];
  clocks: TenantClocks;
  payments: Payments;
  paymentStore: PaymentStore;
  vault: Vault;
  journal: Journal;
  /** The live journal: one hub per simulator, whose clients share its work (contract 4.1). */
  hub: StreamHub;
}

export interface ControlRoutesDeps extends CallParts {
  baseUrlOf: (req: Request) => string;
  /** When set, /_sim calls but health need it as a Bearer token (or, for a tenant's own calls, its Basic credentials). */
  adminToken: string | undefined;
  /** The API's Basic check, for a tenant's own control plane (decision 0026). */
  authenticate: Authenticate;
  /** Bytes: the largest snapshot `PUT /_sim/state` takes. */
  stateLimit: number;
  openApi: (baseUrl: string) => unknown;
  /** What GET /_sim/metrics exposes: every tenant's, so only the admin token opens it when one is set. */
  metrics: Metrics;
  /** For health: memory, or Redis and whether it answers (decision 0039). */
  storeHealth: () => Promise<StoreHealth>;
}

/** One simulator's control plane: its parts, and the tenant of each request made with its Basic credentials. */
export interface ControlContext extends ControlRoutesDeps {
  scopes: WeakMap<Request, string>;
}

/** A row's one call (decision 0062): `read` its arguments from the request, `run` it; its answer as JSON (`present`ed), none 204. */
export interface RowCall<A = never, R = unknown> {
  read?: (req: Request, ctx: ControlContext, where: string) => unknown;
  run: (parts: CallParts, call: { tenant: string | undefined; baseUrl: string }, args: A) => R;
  status?: number;
  present?: (answer: never) => unknown;
}

/** A row's own HTTP handler, for an answer that is streamed or not JSON; `call`: the tenant it acts on and its name (`GET /_sim/tokens`). */
export type ControlHandler = (ctx: ControlContext, call: { tenant: string | undefined; where: string }, req: Request, res: Response) => void | Promise<void>;

export function serve(call: RowCall): ControlHandler {
  return async (ctx, { tenant, where }, req, res) => {
    const args = (await call.read?.(req, ctx, where)) as never;
    const answer = await call.run(ctx, { tenant, baseUrl: ctx.baseUrlOf(req) }, args);
    // A client gone while the answer was awaited (a flush) is answered nothing.
    if (res.closed) return;
    if (answer === undefined) res.status(204).end();
    else sendJson(res, call.status ?? 200, call.present ? call.present(answer as never) : answer);
  };
}

/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

export function unknownTenant(): HttpError {
  return new HttpError('urlInvalid', 'tenant must name one configured username', {
    problems: [{ errorName: 'fieldHasInvalidValue', message: `tenant must be a configured username, given once` }],
  });
}

export function outsideScope(tenant: string): HttpError {
  return new HttpError('outsideTenantScope', `These credentials act on tenant '${tenant}' only; other tenants and everyone-wide calls need the admin token`);
}

/** The tenant a call acts on: `?tenant=` (absent: every tenant), or that of the credentials, which `?tenant=` may only repeat. */
export function tenantOf(ctx: ControlContext, req: Request): string | undefined {
  const value: unknown = req.query.tenant;
  const own = ctx.scopes.get(req);
  if (own !== undefined) {
    if (value !== undefined && value !== own) throw outsideScope(own);
    return own;
  }
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !ctx.isTenant(value)) throw unknownTenant();
  return value;
}

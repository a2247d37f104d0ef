/**
 * What every /_sim handler is given: one simulator's parts (the context), and the call as the table's row
 * reads it (the tenant it acts on, and its name for messages). The answers' shared pieces live here too.
 */
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
import type { JournalStreams, StreamHub } from '../journal-stream.js';

import type { StoreHealth } from '../../store/stores.js';
import type { MagicValues } from './magic-values.js';

/** What the dashboard's calls need besides the controller (decision 0034). */
export interface DashboardDeps {
  /** The configured usernames (tenants), in configuration order. */
  tenants: () => readonly string[];
  clocks: TenantClocks;
  payments: Payments;
  paymentStore: PaymentStore;
  vault: Vault;
  journal: Journal;
  streams: JournalStreams;
}

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
  /** Sends a logged delivery again (the tenant's, when named), or throws webhookNotFound (decision 0056). */
  resendWebhook: (id: string, tenant: string | undefined) => WebhookResend;
  /** What the dashboard's calls need (decision 0034). */
  dashboard: DashboardDeps;
  /** Where the state lives, for health: memory, or Redis and whether it answers (decision 0039). */
  storeHealth: () => Promise<StoreHealth>;
  /** Every value that changes an outcome; with a tenant, its own scenario set's amounts too (decision 0057). */
  magicValues: (tenant: string | undefined) => MagicValues;
}

/** One simulator's control plane: its parts, the live journal's hub, and the tenants of requests made with a tenant's Basic credentials. */
export interface ControlContext extends ControlRoutesDeps {
  hub: StreamHub;
  scopes: WeakMap<Request, string>;
}

/** A call as its row reads it: the tenant it acts on (`?tenant=`, or a tenant's own credentials) and its name, `GET /_sim/tokens`. */
export interface ControlCall {
  tenant: string | undefined;
  where: string;
}

/** What a row's call runs on: one simulator's parts, the same over HTTP and in process (the library, facade.ts). */
export type CallParts = Pick<ControlRoutesDeps, 'controller' | 'refs' | 'webhooks' | 'resendWebhook' | 'dashboard' | 'magicValues'>;

/**
 * A row's one call (decision 0062): `read` takes its arguments from the request (once the tenant and the row's
 * query parameters are checked), `run` makes it on the tenant's part with the links' base URL; over HTTP its
 * answer goes as JSON (`present`ed, with `status`), none as 204. The library's methods (facade.ts) run the same
 * `run` on their own arguments, read by the same rules (library.ts).
 */
export interface RowCall<A = never, R = unknown> {
  read?: (req: Request, ctx: ControlContext, where: string) => unknown;
  run: (parts: CallParts, call: { tenant: string | undefined; baseUrl: string }, args: A) => R;
  status?: number;
  present?: (answer: never) => unknown;
}

/** A row's call as its HTTP handler. */
export function serve(call: RowCall): (ctx: ControlContext, given: ControlCall, req: Request, res: Response) => Promise<void> {
  return async (ctx, { tenant, where }, req, res) => {
    const args = (await call.read?.(req, ctx, where)) as never;
    const answer = await call.run(ctx, { tenant, baseUrl: ctx.baseUrlOf(req) }, args);
    // A client gone while the answer was awaited (a flush) is answered nothing.
    if (res.closed) return;
    if (answer === undefined) noContent(res);
    else sendJson(res, call.status ?? 200, call.present ? call.present(answer as never) : answer);
  };
}

/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

export const noContent = (res: Response): void => void res.status(204).end();

/** The refusal of a tenant that is not a configured username (over HTTP and in the library alike). */
export function unknownTenant(): HttpError {
  return new HttpError('urlInvalid', 'tenant must name one configured username', {
    problems: [{ errorName: 'fieldHasInvalidValue', message: `tenant must be a configured username, given once` }],
  });
}

/** The refusal of a call outside the tenant's own control plane. */
export function outsideScope(tenant: string): HttpError {
  return new HttpError('outsideTenantScope', `These credentials act on tenant '${tenant}' only; other tenants and everyone-wide calls need the admin token`);
}

/** The tenant a call acts on: `?tenant=` (a configured username; absent: every tenant), or for a tenant's own credentials that tenant, which `?tenant=` may only repeat. */
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

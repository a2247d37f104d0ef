/**
 * The control calls the dashboard needs (contract 3.4, decision 0034), mounted with the other /_sim routes:
 * tenants at a glance, payments with their events, a refund or reversal, deleting a token, and the live
 * journal as server-sent events, bounded per client.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import type { Controller } from '../control/controller.js';
import type { Journal } from '../control/journal.js';
import { allowedActions, lastEventOf, type Payment, type Payments } from '../domain/payment.js';
import type { PaymentStore } from '../domain/ports.js';
import type { Vault } from '../domain/vault.js';
import type { TenantClocks } from '../infra/clock.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardData } from '../wire/mask.js';
import { HttpError } from './errors.js';
import { checkQueryParams, parseJournalQuery } from './journal-query.js';
import { readLimit, readTokenCursor, tokenCursor } from './paging.js';
import { createStreamHub, STREAM_LIMITS, type JournalStreams, type StreamLimits } from './journal-stream.js';

export { createJournalStreams, STREAM_LIMITS, type JournalStreams, type StreamLimits } from './journal-stream.js';

export interface DashboardDeps {
  controller: Controller;
  /** The configured usernames (tenants), in configuration order. */
  tenants: () => readonly string[];
  clocks: TenantClocks;
  payments: Payments;
  paymentStore: PaymentStore;
  vault: Vault;
  journal: Journal;
  streams: JournalStreams;
}

/** The paths (under /_sim, lower case) a tenant's Basic credentials may call besides the fixed ones. */
const TENANT_PATTERN = /^\/(?:tenants|payments|requests\/stream|tokens\/[^/]+|payments\/[^/]+\/(?:refund|reversal))$/;
export const isDashboardTenantPath = (path: string): boolean => TENANT_PATTERN.test(path);

const STREAM_PATH = '/requests/stream';
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * `?access_token=` on the live journal only: the browser's EventSource cannot set headers (decision 0034).
 * True when the request is the stream's and its access_token is the admin token.
 */
export function streamAccessToken(adminToken: string): (req: Request) => boolean {
  const expected = digest(adminToken);
  return (req) => {
    const given: unknown = req.query.access_token;
    return req.path.toLowerCase().replace(/(.)\/$/, '$1') === STREAM_PATH && typeof given === 'string' && timingSafeEqual(digest(given), expected);
  };
}

function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(body));
}

const methodNotAllowed = (allow: string) => (req: Request): never => {
  throw new HttpError('methodNotAllowed', `${req.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } });
};

/** Oldest first: creation time, tenant, id. */
const comparePayments = (a: Payment, b: Payment): number =>
  a.createdAt - b.createdAt || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0) || (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0);

/** A payment as the control plane lists it (`/_sim/payments`): its events caught up, card data masked. */
export interface ControlPayment {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  outcome: 'sentForSettlement' | 'refused';
  lastEvent: string;
  amount: number;
  currency: string;
  refunded: number;
  allowedActions: ('refund' | 'partialRefund' | 'reversal')[];
  /** Virtual time. */
  createdAt: string;
  events: { type: string; at: string; amount: number; reference?: string; refusal?: { code: string; description: string } }[];
}

/** Every payment (one tenant's, or every tenant's), oldest first, each tenant's due events caught up first. */
export function paymentList(payments: Payments, store: PaymentStore, tenant: string | undefined): ControlPayment[] {
  const all: Payment[] = [];
  for (const name of tenant === undefined ? store.tenants() : [tenant]) {
    payments.catchUp(name);
    all.push(...store.list(name));
  }
  return all.sort(comparePayments).map(paymentItem);
}

/** A payment as the dashboard shows it: its events by the tenant's virtual now, card data masked. */
export function paymentItem(p: Payment): ControlPayment {
  return maskCardData({
    tenant: p.tenant,
    paymentId: p.paymentId,
    transactionReference: p.transactionReference,
    outcome: p.settlement === 'none' ? 'refused' : 'sentForSettlement',
    lastEvent: lastEventOf(p),
    amount: p.amount,
    currency: p.currency,
    refunded: p.refunded,
    allowedActions: allowedActions(p),
    createdAt: formatInstant(p.createdAt),
    events: p.events.map((e) => ({
      type: e.type,
      at: formatInstant(e.at),
      amount: e.amount,
      ...(e.reference !== undefined && { reference: e.reference }),
      ...(e.refusal && { refusal: { code: e.refusal.code, description: e.refusal.description } }),
    })),
  }) as ControlPayment;
}

const required = (tenant: string | undefined, where: string): string => {
  if (tenant !== undefined) return tenant;
  throw new HttpError('urlInvalid', `${where} needs ?tenant=`, { problems: [{ errorName: 'fieldIsMissing', message: 'tenant is required: the configured username the payment or token belongs to' }] });
};

const LAST_EVENT_ID = /^[0-9]{1,15}$/;

export function addDashboardRoutes(router: Router, deps: DashboardDeps, tenantParam: (req: Request) => string | undefined, limits: StreamLimits = STREAM_LIMITS): void {
  const { controller } = deps;
  // One hub per simulator: every client of its live journal shares its work (contract 4.1).
  const hub = createStreamHub(deps.journal, deps.streams, limits);

  router
    .route('/tenants')
    .get((req, res) => {
      const tenant = tenantParam(req);
      checkQueryParams(req.query, ['tenant'], 'GET /_sim/tenants');
      const forks = deps.clocks.forks();
      const names = tenant === undefined ? deps.tenants() : [tenant];
      const tenants = names.map((name) => {
        deps.payments.catchUp(name);
        return { name, clock: controller.clock(name), ownClock: forks.has(name), tokens: controller.tokens(name).length, payments: deps.paymentStore.list(name).length };
      });
      sendJson(res, 200, { tenants });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/payments')
    // Paged like /_sim/tokens: oldest first (creation time, tenant, id), `next` continues.
    .get((req, res) => {
      const tenant = tenantParam(req);
      const where = 'GET /_sim/payments';
      checkQueryParams(req.query, ['tenant', 'limit', 'cursor'], where);
      const limit = readLimit(req.query.limit, where);
      const after = readTokenCursor(req.query.cursor, where);
      const names = tenant === undefined ? deps.paymentStore.tenants() : [tenant];
      const all: Payment[] = [];
      for (const name of names) {
        deps.payments.catchUp(name);
        for (const p of deps.paymentStore.list(name)) {
          if (after === undefined || comparePayments(p, { createdAt: after.createdAt, tenant: after.tenant, paymentId: after.tokenId } as Payment) > 0) all.push(p);
        }
      }
      all.sort(comparePayments);
      const page = all.slice(0, limit);
      const last = page.at(-1);
      const next = all.length > limit && last ? tokenCursor({ createdAt: last.createdAt, tenant: last.tenant, tokenId: last.paymentId }) : null;
      sendJson(res, 200, { payments: page.map(paymentItem), next });
    })
    .all(methodNotAllowed('GET'));

  for (const action of ['refund', 'reversal'] as const) {
    router
      .route(`/payments/:paymentId/${action}`)
      // The same domain calls as the API's refund and reversal: the same rules, events and webhooks.
      .post((req, res) => {
        const where = `POST /_sim/payments/{paymentId}/${action}`;
        const tenant = required(tenantParam(req), where);
        checkQueryParams(req.query, ['tenant'], where);
        const id = String(req.params.paymentId);
        const payment = action === 'refund' ? deps.payments.refund(tenant, id) : deps.payments.reversal(tenant, id);
        sendJson(res, 200, paymentItem(payment));
      })
      .all(methodNotAllowed('POST'));
  }

  router
    .route('/tokens/:tokenId')
    // The vault's delete: 404 for a token that does not exist, has expired or was deleted.
    .delete((req, res) => {
      const where = 'DELETE /_sim/tokens/{tokenId}';
      const tenant = required(tenantParam(req), where);
      checkQueryParams(req.query, ['tenant'], where);
      deps.vault.delete(tenant, String(req.params.tokenId));
      res.status(204).end();
    })
    .all(methodNotAllowed('DELETE'));

  router
    .route('/requests/stream')
    .get((req, res) => {
      const tenant = tenantParam(req);
      const where = 'GET /_sim/requests/stream';
      const rest = Object.fromEntries(Object.entries(req.query).filter(([key]) => key !== 'tenant' && key !== 'access_token'));
      checkQueryParams(rest, ['operation', 'status', 'method', 'rule', 'since'], where);
      const { filter } = parseJournalQuery(rest, where);
      const { since: sinceParam, ...live } = filter;
      const header = req.headers['last-event-id'];
      const since = sinceParam ?? (typeof header === 'string' && LAST_EVENT_ID.test(header.trim()) ? Number(header.trim()) : undefined);
      hub.open(req, res, tenant, live, since);
    })
    .all(methodNotAllowed('GET'));
}

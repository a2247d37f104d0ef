/**
 * The control calls the dashboard needs (contract 3.4, decision 0034), mounted with the other /_sim routes:
 * tenants at a glance, payments with their events, a refund or reversal, deleting a token, and the live
 * journal as server-sent events, bounded per client.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import type { Controller } from '../control/controller.js';
import { matchesJournalFilter, type Journal, type JournalFilter, type JournalSelection } from '../control/journal.js';
import { toEntry } from '../control/journal-entry.js';
import { allowedActions, lastEventOf, type Payment, type Payments } from '../domain/payment.js';
import type { PaymentStore } from '../domain/ports.js';
import type { Vault } from '../domain/vault.js';
import type { TenantClocks } from '../infra/clock.js';
import { formatInstant } from '../wire/instant.js';
import { maskCardData } from '../wire/mask.js';
import { HttpError } from './errors.js';
import { checkQueryParams, parseJournalQuery } from './journal-query.js';
import { readLimit, readTokenCursor, tokenCursor } from './paging.js';

/** The open live-journal streams of one simulator: ended at server close, so none holds the shutdown. */
export interface JournalStreams {
  /** Registers a stream's end; returns its removal. After closeAll, ends the stream at once. */
  add(end: () => void): () => void;
  /** Ends every open stream (and any opened later). */
  closeAll(): void;
  /** How many are open. */
  size(): number;
}

export function createJournalStreams(): JournalStreams {
  const open = new Set<() => void>();
  let closed = false;
  return {
    add(end) {
      if (closed) {
        end();
        return () => undefined;
      }
      open.add(end);
      return () => void open.delete(end);
    },
    closeAll() {
      closed = true;
      for (const end of [...open]) end();
      open.clear();
    },
    size: () => open.size,
  };
}

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

/** How the live journal bounds each client (decision 0034). */
export interface StreamLimits {
  /** Entries sent first when the client gives no `since` or `Last-Event-ID`. */
  backlog: number;
  /** Entries sent first at most when resuming: older ones are reported as a gap. */
  resume: number;
  /**
   * Entries waiting for a client at most: beyond, the oldest are dropped and reported as a gap. With
   * `flushMs`, this also caps the entries a client gets per second (pending × 1000 / flushMs).
   */
  pending: number;
  /**
   * New entries are written this long after the first of them arrives, together: one write per period
   * rather than one per request, so a dashboard open under load costs the API little (0: next turn).
   */
  flushMs: number;
  /** Bytes buffered in the response at most before entries wait. */
  buffered: number;
  /** A comment line this often keeps proxies and the browser from closing an idle stream. */
  heartbeatMs: number;
}

export const STREAM_LIMITS: StreamLimits = { backlog: 50, resume: 1000, pending: 200, flushMs: 200, buffered: 256 * 1024, heartbeatMs: 15_000 };

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

/** A payment as `/_sim/payments` lists it (and the library's `payments()`). */
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

/** The live journal on one response: backlog first, then each new entry; see decision 0034 for the bounds. */
function stream(deps: DashboardDeps, limits: StreamLimits, req: Request, res: Response, tenant: string | undefined, filter: JournalFilter, since: number | undefined): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  const frame = (s: JournalSelection): string => `id: ${s.seq}\nevent: request\ndata: ${JSON.stringify(toEntry(s))}\n\n`;
  const gap = (skipped: number): string => `event: gap\ndata: {"skipped":${skipped}}\n\n`;
  let pending: JournalSelection[] = [];
  let skipped = 0;
  let scheduled = false;
  let draining = false;
  let closed = false;

  /** Writes what waits while the response buffers less than the bound; the rest waits for 'drain'. */
  const flush = (): void => {
    scheduled = false;
    if (closed) return;
    if (skipped > 0 && res.writableLength < limits.buffered) {
      res.write(gap(skipped));
      skipped = 0;
    }
    // One write for what fits: under load, many entries go out in one chunk.
    let i = 0;
    let chunk = '';
    while (i < pending.length && skipped === 0 && res.writableLength + chunk.length < limits.buffered) chunk += frame(pending[i++] as JournalSelection);
    if (chunk !== '') res.write(chunk);
    pending = i === pending.length ? [] : pending.slice(i);
    if (pending.length === 0 && skipped === 0) return;
    // What is left waits for 'drain' when the socket is behind; when it took everything at once (no 'drain'
    // will come), on the next turn.
    if (res.writableNeedDrain) {
      if (draining) return;
      draining = true;
      res.once('drain', () => {
        draining = false;
        flush();
      });
    } else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const listener = (s: JournalSelection): void => {
    if ((tenant !== undefined && s.record.tenant !== tenant) || !matchesJournalFilter(filter, s.seq, s.record)) return;
    if (pending.length >= limits.pending) {
      pending.shift();
      skipped++;
    }
    pending.push(s);
    if (!scheduled && !draining) {
      scheduled = true;
      if (limits.flushMs > 0) setTimeout(flush, limits.flushMs);
      else setImmediate(flush);
    }
  };

  // The backlog and the subscription in one turn: no entry is missed or sent twice.
  const { selected } = deps.journal.select(tenant, since === undefined ? filter : { ...filter, since });
  const keep = since === undefined ? limits.backlog : limits.resume;
  if (since !== undefined && selected.length > keep) skipped = selected.length - keep;
  pending = selected.slice(Math.max(0, selected.length - keep));
  const unsubscribe = deps.journal.subscribe(listener);
  const heartbeat = setInterval(() => {
    if (res.writableLength < limits.buffered) res.write(': heartbeat\n\n');
  }, limits.heartbeatMs);
  heartbeat.unref();
  let forget = (): void => undefined;
  const cleanup = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    pending = [];
    forget();
  };
  res.once('close', cleanup);
  forget = deps.streams.add(() => {
    cleanup();
    res.end();
  });
  if (!closed) flush();
}

const LAST_EVENT_ID = /^[0-9]{1,15}$/;

export function addDashboardRoutes(router: Router, deps: DashboardDeps, tenantParam: (req: Request) => string | undefined, limits: StreamLimits = STREAM_LIMITS): void {
  const { controller } = deps;

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
      stream(deps, limits, req, res, tenant, live, since);
    })
    .all(methodNotAllowed('GET'));
}

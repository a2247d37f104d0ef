/** The control calls the dashboard needs (contract 3.4, decision 0034): tenants, payments, their actions, a token's delete, the live journal. */
import type { ClockState } from '../../control/snapshot-types.js';
import type { TokenPosition } from '../../control/token-pages.js';
import { allowedActions, lastEventOf, saleOutcomeOf, type Payment, type PaymentEventType } from '../../domain/payment.js';
import type { Payments } from '../../domain/payments.js';
import type { PaymentStore } from '../../domain/ports.js';
import { formatInstant } from '../../wire/instant.js';
import { maskCardData } from '../../wire/mask.js';
import { checkQueryParams, parseJournalQuery, readLimit, readTokenCursor, refuse, tokenCursor } from '../control-query.js';
import type { ControlHandler, RowCall } from './context.js';

/** Oldest first: creation time, tenant, id. */
const comparePayments = (a: Payment, b: Payment): number =>
  a.createdAt - b.createdAt || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0) || (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0);

/** A payment as the control plane lists it (`/_sim/payments`): its events caught up, card data masked. */
export interface ControlPayment {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  outcome: 'sentForSettlement' | 'refused';
  lastEvent: PaymentEventType;
  amount: number;
  currency: string;
  refunded: number;
  allowedActions: ('refund' | 'partialRefund' | 'reversal')[];
  /** Virtual time. */
  createdAt: string;
  events: { type: PaymentEventType; at: string; amount: number; reference?: string | undefined; refusal?: { code: string; description: string } | undefined }[];
}

/** A tenant as `GET /_sim/tenants` lists it: its clock, whether that clock is its own, and its counts. */
export interface ControlTenant {
  name: string;
  clock: ClockState;
  ownClock: boolean;
  /** Live tokens. */
  tokens: number;
  payments: number;
}

/** One tenant's payments or all, oldest first, events caught up; with a `reference`, those of that transactionReference (decision 0057). */
function paymentsOf(payments: Payments, store: PaymentStore, tenant: string | undefined, reference?: string): Payment[] {
  const all = (tenant === undefined ? store.tenants() : [tenant]).flatMap((name) => {
    if (reference !== undefined) return payments.withReference(name, reference);
    payments.catchUp(name);
    return store.list(name);
  });
  return all.sort(comparePayments);
}

function paymentItem(p: Payment): ControlPayment {
  return maskCardData({
    tenant: p.tenant,
    paymentId: p.paymentId,
    transactionReference: p.transactionReference,
    outcome: saleOutcomeOf(p),
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

export const listTenants: RowCall = {
  run({ controller, dashboard }, { tenant }) {
    const forks = dashboard.clocks.forks();
    const names = tenant === undefined ? dashboard.tenants() : [tenant];
    const tenants = names.map((name): ControlTenant => {
      dashboard.payments.catchUp(name);
      return { name, clock: controller.clock(name), ownClock: forks.has(name), tokens: controller.tokens(name).length, payments: dashboard.paymentStore.list(name).length };
    });
    return { tenants };
  },
};

/** Paged like /_sim/tokens: oldest first (creation time, tenant, id), `next` continues; `transactionReference` filters. Without a `limit` (the library), every payment. */
export const listPayments: RowCall<{ limit?: number; after?: TokenPosition | undefined; reference?: string }> = {
  read(req, _ctx, where) {
    const limit = readLimit(req.query.limit, where);
    const after = readTokenCursor(req.query.cursor, where);
    const reference: unknown = req.query.transactionReference;
    if (reference !== undefined && (typeof reference !== 'string' || reference === '')) throw refuse(where, 'transactionReference must not be empty, and given once');
    return { limit, after, reference };
  },
  run({ dashboard }, { tenant }, { limit = Number.POSITIVE_INFINITY, after, reference } = {}) {
    const position = after && ({ createdAt: after.createdAt, tenant: after.tenant, paymentId: after.tokenId } as Payment);
    const all = paymentsOf(dashboard.payments, dashboard.paymentStore, tenant, reference).filter((p) => position === undefined || comparePayments(p, position) > 0);
    const page = all.slice(0, limit);
    const last = page.at(-1);
    const next = all.length > limit && last ? tokenCursor({ createdAt: last.createdAt, tenant: last.tenant, tokenId: last.paymentId }) : null;
    return { payments: page.map(paymentItem), next };
  },
};

/** The API's refund and reversal: the same rules, events and webhooks. */
const paymentAction = (action: 'refund' | 'reversal'): RowCall<string> => ({
  read: (req) => String(req.params.paymentId),
  run: ({ dashboard }, { tenant }, paymentId) => paymentItem(dashboard.payments[action](tenant as string, paymentId)),
});
export const refundPayment = paymentAction('refund');
export const reversePayment = paymentAction('reversal');

/** The vault's delete: 404 for a token that does not exist, has expired or was deleted. */
export const deleteToken: RowCall<string> = {
  read: (req) => String(req.params.tokenId),
  run: ({ dashboard }, { tenant }, tokenId) => dashboard.vault.delete(tenant as string, tokenId),
};

const LAST_EVENT_ID = /^[0-9]{1,15}$/;

/** The live journal (journal-stream.ts): one hub per simulator, whose clients share its work (contract 4.1). */
export const streamRequests: ControlHandler = (ctx, { tenant, where }, req, res) => {
  const rest = Object.fromEntries(Object.entries(req.query).filter(([key]) => key !== 'tenant' && key !== 'access_token'));
  checkQueryParams(rest, ['operation', 'status', 'method', 'rule', 'since'], where);
  const { filter } = parseJournalQuery(rest, where);
  const { since: sinceParam, ...live } = filter;
  const header = req.headers['last-event-id'];
  const since = sinceParam ?? (typeof header === 'string' && LAST_EVENT_ID.test(header.trim()) ? Number(header.trim()) : undefined);
  ctx.dashboard.hub.open(req, res, tenant, live, since);
};

/** The /_sim calls of the control table, each run over HTTP and by the library alike (decision 0062); the dashboard's last (decision 0034). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { JournalFilter } from '../../control/journal.js';
import type { ClockState } from '../../control/snapshot-types.js';
import type { TokenPosition } from '../../control/token-pages.js';
import { packageVersion } from '../../config/version.js';
import { allowedActions, lastEventOf, saleOutcomeOf, type Payment, type PaymentEventType } from '../../domain/payment.js';
import type { WebhookFilter } from '../../infra/webhooks.js';
import { parseScenarioText, scenarioPaths, validateScenarios } from '../../scenarios/loader.js';
import type { Scenario } from '../../scenarios/schema.js';
import { formatInstant } from '../../wire/instant.js';
import { parseJsonText } from '../../wire/json.js';
import { maskCardData } from '../../wire/mask.js';
import { WireError, type FieldPath } from '../../wire/problems.js';
import { readBody } from '../body.js';
import { HttpError } from '../errors.js';
import { isYamlType, schemeOf } from '../guard.js';
import { toHar } from '../../verify/har.js';
import { checkQueryParams, parseJournalQuery, readFlushTimeout, readJournalCursor, readLimit, readTokenCursor, readWebhookQuery, refuse, tokenCursor, type JournalFormat } from '../control-query.js';
import { essence } from '../media.js';
import { controlTokenList } from '../present.js';
import { sendJson, type ControlHandler, type RowCall } from './context.js';

const bodyText = async (req: Request, limit?: number): Promise<string> => (await readBody(req, limit)).toString('utf8');
const jsonOf = async (req: Request, limit?: number): Promise<unknown> => parseJsonText(await bodyText(req, limit));

/** Open: it says where the state lives; with Redis unreachable, 503 (contract 3.5). */
export const health: ControlHandler = async (ctx, _call, _req, res) => {
  const store = await ctx.storeHealth();
  const up = store.kind === 'memory' || store.up;
  sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'unavailable', store });
};

export const metrics: ControlHandler = async (ctx, _call, _req, res) => {
  const text = await ctx.metrics.scrape();
  res.statusCode = 200;
  res.setHeader('Content-Type', ctx.metrics.contentType);
  res.end(text);
};

/** The controller's call of this name on the row's tenant; `withBody`: its JSON body first (the library passes the same one). */
export const onController = (name: 'clock' | 'reset' | 'clearRequests'): RowCall => ({ run: ({ controller }, { tenant }) => controller[name](tenant) });
export const withBody = (name: 'setClock' | 'advanceClock'): RowCall<unknown> => ({ read: (req) => jsonOf(req), run: ({ controller }, { tenant }, body) => controller[name](body, tenant) });

/** Without a `limit` (the library), every token. */
export const listTokens: RowCall<{ limit?: number; after?: TokenPosition }> = {
  read: (req, _ctx, where) => ({ limit: readLimit(req.query.limit, where), after: readTokenCursor(req.query.cursor, where) }),
  run({ controller, refs }, { tenant, baseUrl }, { limit, after } = {}) {
    const page = controller.tokenPage(tenant, after, limit);
    const last = page.tokens.at(-1);
    return { tokens: controlTokenList(page.tokens, { baseUrl, refs }), next: page.more && last ? tokenCursor(last) : null };
  },
};

/** The cursor of the page after one that showed `shown` of `count` entries, the last being `lastSeq`. */
const nextOf = (shown: number, count: number, lastSeq: number | undefined): string | null => (lastSeq !== undefined && count > shown ? String(lastSeq) : null);

/** Filters, a count, JSON or HAR 1.2 (decision 0018); over HTTP one page of at most `limit` (default 1000). */
export const listRequests: RowCall<{ filter: JournalFilter; format?: JournalFormat; scheme?: 'http' | 'https' }> = {
  read(req, _ctx, where) {
    const { cursor: cursorParam, ...query } = req.query;
    const { filter: given, format } = parseJournalQuery(query, where);
    const cursor = readJournalCursor(cursorParam, where);
    if (cursor !== undefined && given.since !== undefined) throw new HttpError('urlInvalid', 'Give since or cursor, not both', { problems: [{ errorName: 'fieldHasInvalidValue', message: 'since and cursor cannot be combined' }] });
    const since = cursor ?? given.since;
    // One simulator serves one scheme: the journal's requests came the way this one did.
    return { filter: { ...given, ...(since !== undefined && { since }), limit: readLimit(query.limit, where) }, format, scheme: schemeOf(req) };
  },
  run({ controller, journal }, { tenant }, { filter, format, scheme = 'http' }) {
    if (format !== 'har') {
      const { requests, count } = controller.requests(tenant, filter);
      return { requests, count, next: nextOf(requests.length, count, requests.at(-1)?.seq) };
    }
    // The same selection as kept records (the journal's own view), for HAR.
    const { selected: records, count } = journal.select(tenant, filter);
    const har = toHar(records, count, packageVersion(), scheme);
    return { log: { ...har.log, _next: nextOf(records.length, count, records.at(-1)?.seq) } };
  },
};

/** Tokens per slice of a streamed snapshot: a few milliseconds of work at most. */
const STATE_SLICE = 64;

/** `GET /_sim/state` (decision 0026): parts taken at one moment, written a slice at a time (never one string, never holding the API up). */
export const exportState: ControlHandler = async (ctx, { tenant }, _req, res) => {
  const text = ctx.controller.exportStateText(tenant, { slice: STATE_SLICE, mask: true });
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  // Stops when the client is gone.
  await pipeline(Readable.from(text), res).catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  });
};

export const importState: RowCall<unknown> = {
  read: (req, ctx) => jsonOf(req, ctx.stateLimit),
  run: ({ controller }, { tenant }, snapshot) => controller.importState(snapshot, tenant),
};

/** A tenant's own set, or the global one; card numbers masked like all /_sim output. */
export const listScenarios = {
  run: ({ controller }, { tenant }) => ({ scenarios: controller.scenarios(tenant) }),
  present: ({ scenarios }: { scenarios: readonly Scenario[] }) => ({ scenarios: maskCardData(scenarios) }),
} satisfies RowCall;

/** A scenario body as its Content-Type says; JSON that does not parse is told that YAML goes as YAML (contract 4.1). */
function parseScenarioBody(text: string, yaml: boolean): unknown {
  try {
    return parseScenarioText(text, yaml ? 'yaml' : 'json');
  } catch (err) {
    if (yaml || !(err instanceof WireError) || err.code !== 'bodyIsNotJson') throw err;
    throw new WireError('bodyIsNotJson', `${err.message}; a YAML scenario goes with Content-Type: application/yaml`);
  }
}

/** Answers the set loaded, as listScenarios. */
export const clearScenarios: RowCall = { run: ({ controller }, { tenant }) => controller.loadScenarios([], undefined, tenant) };

export const loadScenarios: RowCall<{ scenarios: Scenario[]; paths?: FieldPath[] }> = {
  async read(req) {
    const data = parseScenarioBody(await bodyText(req), isYamlType(essence(req.headers['content-type'])));
    const scenarios = validateScenarios(data);
    return { scenarios, paths: scenarioPaths(data, scenarios.length) };
  },
  run(parts, call, { scenarios, paths }) {
    parts.controller.loadScenarios(scenarios, paths, call.tenant);
    return listScenarios.run(parts, call);
  },
  present: listScenarios.present,
};

/** The delivery log, paged like the journal (decision 0030). */
export const listWebhooks: RowCall<WebhookFilter> = {
  read: (req, _ctx, where) => readWebhookQuery(req.query, where),
  run({ webhooks }, { tenant }, filter) {
    const { deliveries, count } = webhooks.deliveries({ ...filter, ...(tenant !== undefined && { tenant }) });
    return { webhooks: deliveries, count, next: nextOf(deliveries.length, count, deliveries.at(-1)?.seq) };
  },
};

/** Answers once nothing (of the tenant) is queued, in flight or waiting to retry, or after `timeout` ms. */
export const flushWebhooks: RowCall<number> = {
  read: (req, _ctx, where) => readFlushTimeout(req.query, where),
  run: ({ webhooks }, { tenant }, timeoutMs) => webhooks.flush({ ...(tenant !== undefined && { tenant }), timeoutMs }),
};

/** A logged delivery sent again as a new one, same eventId (decision 0056). */
export const resendWebhook: RowCall<string> = { read: (req) => String(req.params.id), run: (parts, { tenant }, id) => parts.resendWebhook(id, tenant), status: 202 };

export const openApi: ControlHandler = (ctx, _call, req, res) => sendJson(res, 200, ctx.openApi(ctx.baseUrlOf(req)));

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
  run({ controller, clocks, tenants: configured, payments, paymentStore }, { tenant }) {
    const forks = clocks.forks();
    const names = tenant === undefined ? configured() : [tenant];
    const tenants = names.map((name): ControlTenant => {
      payments.catchUp(name);
      return { name, clock: controller.clock(name), ownClock: forks.has(name), tokens: controller.tokens(name).length, payments: paymentStore.list(name).length };
    });
    return { tenants };
  },
};

/** Paged like /_sim/tokens: oldest first (creation time, tenant, id), events caught up, `next` continues; `transactionReference` filters (decision 0057). Without a `limit` (the library), every payment. */
export const listPayments: RowCall<{ limit?: number; after?: TokenPosition | undefined; reference?: string }> = {
  read(req, _ctx, where) {
    const limit = readLimit(req.query.limit, where);
    const after = readTokenCursor(req.query.cursor, where);
    const reference: unknown = req.query.transactionReference;
    if (reference !== undefined && (typeof reference !== 'string' || reference === '')) throw refuse(where, 'transactionReference must not be empty, and given once');
    return { limit, after, reference };
  },
  run({ payments, paymentStore }, { tenant }, { limit = Number.POSITIVE_INFINITY, after, reference } = {}) {
    const position = after && ({ createdAt: after.createdAt, tenant: after.tenant, paymentId: after.tokenId } as Payment);
    const listed = (tenant === undefined ? paymentStore.tenants() : [tenant]).flatMap((name) => {
      if (reference !== undefined) return payments.withReference(name, reference);
      payments.catchUp(name);
      return paymentStore.list(name);
    });
    const all = listed.sort(comparePayments).filter((p) => position === undefined || comparePayments(p, position) > 0);
    const page = all.slice(0, limit);
    const last = page.at(-1);
    const next = all.length > limit && last ? tokenCursor({ createdAt: last.createdAt, tenant: last.tenant, tokenId: last.paymentId }) : null;
    return { payments: page.map(paymentItem), next };
  },
};

/** The API's refund and reversal: the same rules, events and webhooks. */
const paymentAction = (action: 'refund' | 'reversal'): RowCall<string> => ({
  read: (req) => String(req.params.paymentId),
  run: ({ payments }, { tenant }, paymentId) => paymentItem(payments[action](tenant as string, paymentId)),
});
export const refundPayment = paymentAction('refund');
export const reversePayment = paymentAction('reversal');

/** The vault's delete: 404 for a token that does not exist, has expired or was deleted. */
export const deleteToken: RowCall<string> = {
  read: (req) => String(req.params.tokenId),
  run: ({ vault }, { tenant }, tokenId) => vault.delete(tenant as string, tokenId),
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
  ctx.hub.open(req, res, tenant, live, since);
};

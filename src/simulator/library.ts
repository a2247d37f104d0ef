/**
 * What the in-process library (facade.ts) and the remote client (remote.ts) share: library arguments read
 * by the rules of their /_sim rows (so a bad value is the same refusal in process, remotely and over HTTP),
 * and the tenant handle, bound once for both from the methods that take a tenant.
 */
import { JOURNAL_FILTER_KEYS, type JournalFilter } from '../control/journal.js';
import { unknownTenant } from '../http/admin/context.js';
import { checkQueryParams, parseJournalQuery } from '../http/journal-query.js';
import { FLUSH_MAX_MS, readFlushTimeout, readWebhookQuery } from '../http/webhook-query.js';
import type { WebhookState } from '../infra/webhooks.js';

/** The journal filter with the tenant to read (every tenant's entries when absent). */
export interface RequestQuery extends JournalFilter {
  tenant?: string;
}

/** Which webhook deliveries to list: in one state, at most `limit` (the oldest first). */
export interface WebhookFilter {
  state?: WebhookState;
  limit?: number;
}

/** The same with the tenant to read (every tenant's deliveries when absent). */
export interface WebhookQuery extends WebhookFilter {
  tenant?: string;
}

/** How long a flush waits at most (milliseconds, default 30000, at most 60000). */
export interface FlushOptions {
  timeoutMs?: number;
}

/** Library arguments as query text (numbers as the parameters' text), read by the rules of the HTTP call. */
function asParams(query: object | undefined): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params[key] = typeof value === 'number' ? String(value) : value;
  return params;
}

/** A tenant given in a library query: text, or the refusal an unknown tenant gets. */
function tenantParam(tenant: unknown): string | undefined {
  if (tenant !== undefined && typeof tenant !== 'string') throw unknownTenant();
  return tenant;
}

/**
 * A library journal query read by the rules of `GET /_sim/requests` (numbers as the parameters' text), so
 * a bad filter is the same `urlContainsInvalidValue` refusal in process, remotely and over HTTP. Throws
 * the HTTP error; callers turn it into a SimulatorError.
 */
export function readRequestQuery(query: RequestQuery | string | undefined): { tenant: string | undefined; filter: JournalFilter } {
  if (typeof query === 'string') return { tenant: query, filter: {} };
  const { tenant, ...rest } = asParams(query);
  // `format` is the HTTP call's, not a filter: the library answers entries.
  checkQueryParams(rest, JOURNAL_FILTER_KEYS, 'requests()');
  return { tenant: tenantParam(tenant), filter: parseJournalQuery(rest, 'requests()').filter };
}

/** A library webhook query read by the rules of `GET /_sim/webhooks`; throws the HTTP error. */
export function readWebhookArgs(query: WebhookQuery | string | undefined): { tenant: string | undefined; state?: WebhookState; limit?: number } {
  if (typeof query === 'string') return { tenant: query };
  const { tenant, ...rest } = asParams(query);
  const checked = tenantParam(tenant);
  const read = readWebhookQuery(rest, 'webhooks()');
  return { tenant: checked, ...(read.state !== undefined && { state: read.state }), ...(rest.limit !== undefined && { limit: read.limit }) };
}

/** A library flush's options read by the rules of `POST /_sim/webhooks/flush`; throws the HTTP error. */
export function readFlushArgs(options: (FlushOptions & { tenant?: string }) | undefined): { tenant: string | undefined; timeoutMs: number } {
  const { tenant, timeoutMs } = options ?? {};
  const checked = tenantParam(tenant);
  const read = readFlushTimeout(asParams(timeoutMs === undefined ? {} : { timeout: timeoutMs }), 'flushWebhooks()');
  return { tenant: checked, timeoutMs: Math.min(read, FLUSH_MAX_MS) };
}

/** The methods a tenant handle binds: the control surface's (answering values or promises), and its scenario calls for one tenant. */
export interface TenantSource {
  clock: { now(tenant?: string): unknown; advance(by: string | number, tenant?: string): unknown; set(now: string | number | Date, frozen?: boolean, tenant?: string): unknown };
  requests(query?: RequestQuery): unknown;
  clearRequests(tenant?: string): unknown;
  tokens(tenant?: string): unknown;
  payments(tenant?: string): unknown;
  reset(tenant?: string): unknown;
  webhooks(query?: WebhookQuery): unknown;
  flushWebhooks(options?: FlushOptions & { tenant?: string }): unknown;
  scenariosOf(tenant: string): unknown;
  loadScenariosOf(tenant: string, items: (string | object)[]): unknown;
}

/** `tenant(name)`: every call of the surface that takes a tenant, on that tenant (SimulatorTenant, RemoteTenant). */
export function bindTenant<Handle>(name: string, s: TenantSource): Handle {
  const handle = {
    name,
    clock: { now: () => s.clock.now(name), advance: (by: string | number) => s.clock.advance(by, name), set: (now: string | number | Date, frozen?: boolean) => s.clock.set(now, frozen, name) },
    loadScenarios: (...items: (string | object)[]) => s.loadScenariosOf(name, items),
    scenarios: () => s.scenariosOf(name),
    requests: (filter?: JournalFilter) => s.requests({ ...filter, tenant: name }),
    clearRequests: () => s.clearRequests(name),
    tokens: () => s.tokens(name),
    payments: () => s.payments(name),
    reset: () => s.reset(name),
    webhooks: (filter?: WebhookQuery) => s.webhooks({ ...filter, tenant: name }),
    flushWebhooks: (options?: FlushOptions) => s.flushWebhooks({ ...options, tenant: name }),
  };
  return handle as Handle;
}

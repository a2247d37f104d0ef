/** Library arguments read by the rules of their /_sim rows: the same refusal in process (facade.ts), remotely (remote.ts) and over HTTP. */
import { JOURNAL_FILTER_KEYS, type JournalFilter } from '../control/journal.js';
import { unknownTenant } from '../http/admin/context.js';
import { HttpError } from '../http/errors.js';
import { checkQueryParams, parseJournalQuery, readFlushTimeout, readWebhookQuery } from '../http/control-query.js';
import type { WebhookState } from '../infra/webhooks.js';

/** The journal filter with the tenant to read (every tenant's entries when absent). */
export interface RequestQuery extends JournalFilter {
  tenant?: string;
}

/** Which webhook deliveries to list: in one state, at most `limit` (the oldest first). */
export interface WebhookFilter {
  state?: WebhookState | undefined;
  limit?: number | undefined;
}

/** The same with the tenant to read (every tenant's deliveries when absent). */
export interface WebhookQuery extends WebhookFilter {
  tenant?: string;
}

/** How long a flush waits at most (milliseconds, default 30000, at most 60000). */
export interface FlushOptions {
  timeoutMs?: number | undefined;
}

/** Library arguments as query text (numbers as the parameters' text), read by the rules of the HTTP call. */
function asParams(query: object | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query ?? {}).flatMap(([key, value]: [string, unknown]) => (value === undefined ? [] : [[key, typeof value === 'number' ? String(value) : value]])));
}

/** A tenant given in a library query: text, or the refusal an unknown tenant gets. */
function tenantParam(tenant: unknown): string | undefined {
  if (tenant !== undefined && typeof tenant !== 'string') throw unknownTenant();
  return tenant;
}

/** A library journal query read by the rules of `GET /_sim/requests`; throws the HTTP error. */
export function readRequestQuery(query: RequestQuery | string | undefined): CallInput {
  if (typeof query === 'string') return { tenant: query, args: () => ({ filter: {} }) };
  const { tenant, ...rest } = asParams(query);
  // `format` is the HTTP call's, not a filter: the library answers entries.
  checkQueryParams(rest, JOURNAL_FILTER_KEYS, 'requests()');
  const checked = tenantParam(tenant);
  const { filter } = parseJournalQuery(rest, 'requests()');
  return { tenant: checked, args: () => ({ filter }), query: { ...filter }, limit: filter.limit };
}

/** A library webhook query read by the rules of `GET /_sim/webhooks`; throws the HTTP error. */
export function readWebhookArgs(query: WebhookQuery | string | undefined): CallInput {
  if (typeof query === 'string') return { tenant: query };
  const { tenant, ...rest } = asParams(query);
  const checked = tenantParam(tenant);
  const { state, limit } = readWebhookQuery(rest, 'webhooks()');
  const given = rest.limit === undefined ? undefined : limit;
  return { tenant: checked, args: () => ({ ...(state !== undefined && { state }), ...(given !== undefined && { limit: given }) }), query: { state }, limit: given };
}

/** A library flush's options read by the rules of `POST /_sim/webhooks/flush`; throws the HTTP error. */
export function readFlushArgs(options: (FlushOptions & { tenant?: string }) | undefined): CallInput {
  const { tenant, timeoutMs } = options ?? {};
  const checked = tenantParam(tenant);
  const read = readFlushTimeout(asParams(timeoutMs === undefined ? {} : { timeout: timeoutMs }), 'flushWebhooks()');
  return { tenant: checked, args: () => read, query: { timeout: read } };
}

/** A delivery's id as `resendWebhook(id)` takes it: text that is not empty, as the path segment would be. */
export function readResendArgs(id: unknown, tenant?: string): CallInput {
  if (typeof id === 'string' && id !== '') return { tenant, args: () => id, params: { id } };
  throw new HttpError('urlInvalid', 'resendWebhook() takes the id of a delivery, as webhooks() lists it', {
    problems: [{ errorName: 'fieldHasInvalidValue', message: 'id must be a delivery\u2019s id: a string that is not empty' }],
  });
}

/** A call's arguments as its row reads them: the tenant, its call's `args` (made once the tenant is checked); remotely its query, path parameters, a paged list's `limit`, loadScenarios' `items`. */
export interface CallInput {
  tenant?: string | undefined;
  args?: () => unknown;
  query?: Record<string, string | number | undefined>;
  params?: Record<string, string>;
  limit?: number | undefined;
  items?: (string | object)[];
}

/** The value of JSON text; undefined for no text, or text that is not JSON. */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The control surface of a simulator running elsewhere (the CLI, a container, a CI service), over its
 * /_sim API: the same calls as a simulator in this process, each answering a promise.
 */
import { readFileSync } from 'node:fs';
import type { JournalEntry } from '../control/journal.js';
import type { StateSnapshot } from '../control/state.js';
import type { ErrorBody } from '../http/errors.js';
import type { WebhookDelivery, WebhookFlush } from '../infra/webhooks.js';
import { PAGE_MAX } from '../http/paging.js';
import { formatOfPath, parseScenarioText } from '../scenarios/loader.js';
import type { Scenario } from '../scenarios/schema.js';
import { instantText } from '../control/clock-input.js';
import {
  ReceivedError,
  libraryCall,
  readFlushArgs,
  readRequestQuery,
  readWebhookArgs,
  type FlushOptions,
  type WebhookQuery,
  SimulatorError,
  type ControlPayment,
  type ControlToken,
  type RequestQuery,
  type SimulatorClock,
  type SimulatorControl,
  type SimulatorTenant,
  type TenantClock,
} from './facade.js';

/** A function of the in-process surface, answering a promise instead. */
type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

/** TenantClock's calls over HTTP. */
export type RemoteTenantClock = { readonly [K in keyof TenantClock]: Async<TenantClock[K]> };

/** SimulatorClock's calls over HTTP. */
export type RemoteClock = { readonly [K in keyof SimulatorClock]: Async<SimulatorClock[K]> };

/** `tenant(name)` of a remote simulator: SimulatorTenant's calls, each answering a promise. */
export type RemoteTenant = { readonly name: string; readonly clock: RemoteTenantClock } & {
  readonly [K in Exclude<keyof SimulatorTenant, 'name' | 'clock'>]: Async<SimulatorTenant[K]>;
};

/** A simulator reached over HTTP (`connectSimulator`): SimulatorControl's calls, each answering a promise. */
export type RemoteSimulator = { readonly url: string; readonly clock: RemoteClock } & {
  readonly [K in Exclude<keyof SimulatorControl, 'clock' | 'tenant'>]: Async<SimulatorControl[K]>;
} & {
  /** One tenant's handle (no request is made until a call). */
  tenant(name: string): RemoteTenant;
  /** Resolves once `/_sim/health` answers ok, retrying for up to `timeoutMs` (default 10 s). */
  ready(timeoutMs?: number): Promise<void>;
};

export interface ConnectOptions {
  /** The simulator's `--admin-token`, sent as `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /**
   * A tenant's Basic credentials instead (without adminToken): every call then acts on that tenant only, its
   * `tenant(username)` handle, its clock and its part of the state (decision 0026).
   */
  username?: string;
  password?: string;
}

/** Scenario files and objects as one PUT body: a single item goes as it is (its JSONPaths stay its own). */
function scenarioBody(items: readonly (string | object)[]): { type: string; text: string } {
  if (items.length === 1 && typeof items[0] === 'string') {
    const path = items[0];
    return { type: formatOfPath(path) === 'json' ? 'application/json' : 'application/yaml', text: readFileSync(path, 'utf8') };
  }
  if (items.length === 1) return { type: 'application/json', text: JSON.stringify(items[0]) };
  const all = items.flatMap((item): unknown[] => {
    const data = typeof item === 'string' ? parseScenarioText(readFileSync(item, 'utf8'), formatOfPath(item)) : item;
    if (Array.isArray(data)) return data as unknown[];
    if (typeof data === 'object' && data !== null && 'scenarios' in data && !('name' in data)) return (data as { scenarios: unknown[] }).scenarios;
    return [data];
  });
  return { type: 'application/json', text: JSON.stringify(all) };
}

/** Connects to a simulator's control API at `url` (e.g. `process.env.TOKEN_SIM_URL`). Nothing is sent until a call. */
export function connectSimulator(url: string, options: ConnectOptions = {}): RemoteSimulator {
  const base = new URL(url.endsWith('/') ? url : `${url}/`);
  const auth: Record<string, string> =
    options.adminToken !== undefined
      ? { Authorization: `Bearer ${options.adminToken}` }
      : options.username !== undefined
        ? { Authorization: `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`, 'utf8').toString('base64')}` }
        : {};

  async function call<T>(method: string, path: string, query: Record<string, string | number | undefined> = {}, body?: { type: string; text: string }): Promise<T> {
    const target = new URL(`_sim/${path}`, base);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) target.searchParams.set(key, String(value));
    const res = await fetch(target, {
      method,
      headers: { Accept: 'application/json', ...auth, ...(body && { 'Content-Type': body.type }) },
      ...(body && { body: body.text }),
    });
    const text = await res.text();
    if (!res.ok) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const errorBody: ErrorBody =
        typeof parsed === 'object' && parsed !== null && typeof (parsed as ErrorBody).errorName === 'string'
          ? (parsed as ErrorBody)
          : { errorName: 'internalErrorOccurred', message: `${method} ${target.pathname} answered ${res.status}` };
      throw new SimulatorError(new ReceivedError(errorBody));
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
  const json = (value: unknown): { type: string; text: string } => ({ type: 'application/json', text: JSON.stringify(value) });

  const clockNow = async (tenant?: string): Promise<string> => (await call<{ now: string }>('GET', 'clock', { tenant })).now;
  const advance = async (by: string | number, tenant?: string): Promise<string> =>
    (await call<{ now: string }>('POST', 'clock/advance', { tenant }, json({ by }))).now;
  const set = async (now: string | number | Date, frozen?: boolean, tenant?: string): Promise<string> =>
    (await call<{ now: string }>('PUT', 'clock', { tenant }, json({ now: libraryCall(() => instantText(now)), ...(frozen !== undefined && { frozen }) }))).now;

  const requests = async (query?: RequestQuery | string): Promise<JournalEntry[]> => {
    // Read here by the same rules as in process, so a bad filter is refused alike (and never sent).
    const { tenant, filter } = libraryCall(() => readRequestQuery(query));
    // The HTTP call answers pages (decision 0025): follow them up to the caller's limit, or to the end.
    const wanted = filter.limit ?? Number.POSITIVE_INFINITY;
    const out: JournalEntry[] = [];
    const { since, ...rest } = filter;
    delete rest.limit;
    let cursor: string | null = null;
    do {
      const position = cursor === null ? { since } : { cursor };
      const page: { requests: JournalEntry[]; next: string | null } = await call('GET', 'requests', {
        tenant,
        ...rest,
        ...position,
        limit: Math.min(wanted - out.length, PAGE_MAX),
      });
      out.push(...page.requests);
      cursor = page.next;
    } while (cursor !== null && out.length < wanted);
    return out;
  };
  const loadScenarios = async (tenant: string | undefined, items: (string | object)[]): Promise<void> => {
    if (items.length === 0) await call('DELETE', 'scenarios', { tenant });
    else await call('PUT', 'scenarios', { tenant }, scenarioBody(items));
  };
  const scenarios = async (tenant?: string): Promise<readonly Scenario[]> => (await call<{ scenarios: Scenario[] }>('GET', 'scenarios', { tenant })).scenarios;
  const tokens = async (tenant?: string): Promise<ControlToken[]> => {
    const out: ControlToken[] = [];
    let cursor: string | null = null;
    do {
      const page: { tokens: ControlToken[]; next: string | null } = await call('GET', 'tokens', { tenant, limit: PAGE_MAX, ...(cursor !== null && { cursor }) });
      out.push(...page.tokens);
      cursor = page.next;
    } while (cursor !== null);
    return out;
  };
  const payments = async (tenant?: string): Promise<ControlPayment[]> => {
    const out: ControlPayment[] = [];
    let cursor: string | null = null;
    do {
      const page: { payments: ControlPayment[]; next: string | null } = await call('GET', 'payments', { tenant, limit: PAGE_MAX, ...(cursor !== null && { cursor }) });
      out.push(...page.payments);
      cursor = page.next;
    } while (cursor !== null);
    return out;
  };
  const clearRequests = async (tenant?: string): Promise<void> => void (await call('DELETE', 'requests', { tenant }));
  const reset = async (tenant?: string): Promise<void> => void (await call('POST', 'reset', { tenant }));
  const webhooks = async (query?: WebhookQuery | string): Promise<WebhookDelivery[]> => {
    // Read here by the same rules as in process (a bad filter is never sent); pages followed up to the limit.
    const { tenant, state, limit } = libraryCall(() => readWebhookArgs(query));
    const wanted = limit ?? Number.POSITIVE_INFINITY;
    const out: WebhookDelivery[] = [];
    let cursor: string | null = null;
    do {
      const page: { webhooks: WebhookDelivery[]; next: string | null } = await call('GET', 'webhooks', {
        tenant,
        state,
        limit: Math.min(wanted - out.length, PAGE_MAX),
        ...(cursor !== null && { cursor }),
      });
      out.push(...page.webhooks);
      cursor = page.next;
    } while (cursor !== null && out.length < wanted);
    return out;
  };
  const flushWebhooks = async (options?: FlushOptions & { tenant?: string }): Promise<WebhookFlush> => {
    const { tenant, timeoutMs } = libraryCall(() => readFlushArgs(options));
    return call<WebhookFlush>('POST', 'webhooks/flush', { tenant, timeout: timeoutMs });
  };

  return {
    url: base.href.replace(/\/$/, ''),
    clock: { now: clockNow, advance, set },
    requests,
    clearRequests,
    reset,
    tokens,
    payments,
    exportState: () => call<StateSnapshot>('GET', 'state'),
    importState: async (state) => void (await call('PUT', 'state', {}, json(state))),
    loadScenarios: (...items) => loadScenarios(undefined, items),
    scenarios: () => scenarios(),
    webhooks,
    flushWebhooks,
    tenant: (name) => ({
      name,
      clock: { now: () => clockNow(name), advance: (by) => advance(by, name), set: (now, frozen) => set(now, frozen, name) },
      loadScenarios: (...items) => loadScenarios(name, items),
      scenarios: () => scenarios(name),
      requests: (filter) => requests({ ...filter, tenant: name }),
      clearRequests: () => clearRequests(name),
      tokens: () => tokens(name),
      payments: () => payments(name),
      reset: () => reset(name),
      webhooks: (filter) => webhooks({ ...filter, tenant: name }),
      flushWebhooks: (options) => flushWebhooks({ ...options, tenant: name }),
    }),
    async ready(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          await call('GET', 'health');
          return;
        } catch (err) {
          if (Date.now() >= deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
  };
}

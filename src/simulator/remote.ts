/** `connectSimulator`: the in-process control surface's calls over a simulator's /_sim API, each answering a promise. */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { text } from 'node:stream/consumers';
import tls from 'node:tls';
import type { ErrorBody } from '../http/errors.js';
import { PAGE_MAX } from '../http/control-query.js';
import { formatOfPath, isWrapper, parseScenarioText } from '../scenarios/loader.js';
import { documentedPath, routeOf, type ControlOperation, type LibraryName } from '../http/admin/table.js';
import { ReceivedError, controlSurface, libraryCall, SimulatorError, type SimulatorClock, type SimulatorControl, type SimulatorTenant, type TenantClock } from './facade.js';
import { parseJson } from './library.js';

/** The calls of an in-process surface, over HTTP: each answering a promise instead. */
type Remote<T> = { readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

export type RemoteTenantClock = Remote<TenantClock>;
export type RemoteClock = Remote<SimulatorClock>;

/** `tenant(name)` of a remote simulator: SimulatorTenant's calls, each answering a promise. */
export type RemoteTenant = { readonly name: string; readonly clock: RemoteTenantClock } & Remote<Omit<SimulatorTenant, 'name' | 'clock'>>;

/** A simulator reached over HTTP (`connectSimulator`): SimulatorControl's calls, each answering a promise. */
export type RemoteSimulator = { readonly url: string; readonly clock: RemoteClock } & Remote<Omit<SimulatorControl, 'clock' | 'tenant'>> & {
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
  /**
   * For an `https://` simulator (`--tls`): a PEM CA certificate to trust besides the system store, such as the
   * file `--tls` prints (`readFileSync(caFile)`).
   */
  ca?: string | Uint8Array;
}

type Body = { type: string; text: string };
type Query = Record<string, string | number | undefined>;
const json = (value: unknown): Body => ({ type: 'application/json', text: JSON.stringify(value) });

/** Scenario files and objects as one PUT body: a single item goes as it is (its JSONPaths stay its own). */
function scenarioBody(items: readonly (string | object)[]): Body {
  if (items.length === 1 && typeof items[0] === 'string') {
    const path = items[0];
    return { type: formatOfPath(path) === 'json' ? 'application/json' : 'application/yaml', text: readFileSync(path, 'utf8') };
  }
  if (items.length === 1) return json(items[0]);
  const all = items.flatMap((item): unknown[] => {
    const data = typeof item === 'string' ? parseScenarioText(readFileSync(item, 'utf8'), formatOfPath(item)) : item;
    if (Array.isArray(data)) return data as unknown[];
    if (isWrapper(data)) return data.scenarios as unknown[];
    return [data];
  });
  return json(all);
}

/** The control table's names of the library's methods: every one has its /_sim row, and every named row is a method. */
type SurfaceName = Exclude<keyof SimulatorControl, 'clock' | 'tenant'> | `clock.${keyof SimulatorClock}` | 'ready';
const EVERY_METHOD_HAS_A_ROW: [SurfaceName] extends [LibraryName] ? ([LibraryName] extends [SurfaceName] ? true : never) : never = true;
void EVERY_METHOD_HAS_A_ROW;

/** Connects to a simulator's control API at `url` (e.g. `process.env.TOKEN_SIM_URL`). Nothing is sent until a call. */
export function connectSimulator(url: string, options: ConnectOptions = {}): RemoteSimulator {
  const base = new URL(url.endsWith('/') ? url : `${url}/`);
  const agent = options.ca === undefined ? undefined : new https.Agent({ keepAlive: true, ca: [...tls.rootCertificates, typeof options.ca === 'string' ? options.ca : Buffer.from(options.ca).toString('utf8')] });
  const auth: Record<string, string> =
    options.adminToken !== undefined
      ? { Authorization: `Bearer ${options.adminToken}` }
      : options.username !== undefined
        ? { Authorization: `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`, 'utf8').toString('base64')}` }
        : {};
  /** One /_sim call: a row of the control table, its query, body and path parameters; a refusal is rethrown as a SimulatorError with the body as it came. */
  async function send<T>(op: ControlOperation, query: Query = {}, body?: Body, params: Record<string, string> = {}): Promise<T> {
    const path = documentedPath(op).replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    const target = new URL(path.slice(1), base);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) target.searchParams.set(key, String(value));
    const headers = { Accept: 'application/json', ...auth, ...(body && { 'Content-Type': body.type, 'Content-Length': String(Buffer.byteLength(body.text)) }) };
    const secure = target.protocol === 'https:';
    const req = (secure ? https : http).request(target, { method: op.method, headers, ...(agent && secure && { agent }) });
    req.end(body?.text);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    const answer = await text(res);
    if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
      const parsed = parseJson(answer);
      const errorBody: ErrorBody =
        typeof parsed === 'object' && parsed !== null && typeof (parsed as ErrorBody).errorName === 'string'
          ? (parsed as ErrorBody)
          : { errorName: 'internalErrorOccurred', message: `${op.method} ${target.pathname} answered ${res.statusCode ?? 0}` };
      throw new SimulatorError(new ReceivedError(errorBody));
    }
    return (answer === '' ? undefined : JSON.parse(answer)) as T;
  }
  /** A paged read (decision 0025): its pages followed up to `wanted` items, or to the end; `since` positions the first page only. */
  async function pages(op: ControlOperation, key: string, query: Query, wanted = Number.POSITIVE_INFINITY): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: Record<string, unknown> & { next: string | null } = await send(op, { ...query, ...(cursor !== null && { since: undefined, cursor }), limit: Math.min(wanted - out.length, PAGE_MAX) });
      out.push(...(page[key] as unknown[]));
      cursor = page.next;
    } while (cursor !== null && out.length < wanted);
    return out;
  }
  return {
    url: base.href.replace(/\/$/, ''),
    // Arguments read here by the in-process rules: a bad value is refused alike, and never sent.
    ...controlSurface<Omit<RemoteSimulator, 'url' | 'ready'>>(async (name, method, read) => {
      const { input, body } = libraryCall(() => {
        const given = read();
        return { input: given, body: method.body && json(given.args?.()) };
      });
      // loadScenarios: its files and objects as one PUT body (read here), or none: DELETE, the set cleared.
      const items = name === 'loadScenarios' ? (input.items ?? []) : undefined;
      const op = items === undefined ? routeOf(name) : routeOf(name, items.length === 0 ? 'DELETE' : 'PUT');
      const query = { tenant: input.tenant, ...input.query };
      const answer = method.pages ? await pages(op, method.pages, query, input.limit) : await send(op, query, items?.length ? scenarioBody(items) : body, input.params);
      return method.answer ? method.answer(answer as never) : answer;
    }),
    async ready(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          await send(routeOf('ready'));
          return;
        } catch (err) {
          if (Date.now() >= deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
  };
}

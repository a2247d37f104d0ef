/** The library facade of one simulator: what `createSimulator` and `startSimulator` hand to a test suite. */
import type { ControlToken } from '../http/openapi-schemas.js';
import { instantText } from '../control/controller.js';
import type { JournalEntry, JournalFilter } from '../control/journal.js';
import type { StateSnapshot } from '../control/snapshot-types.js';
import { renderError, type ErrorBody } from '../http/errors.js';
import type { ControlPayment } from '../http/admin/handlers.js';
import type { MagicValues } from '../http/admin/magic-values.js';
import { unknownTenant, type CallParts, type RowCall } from '../http/admin/context.js';
import type { WebhookDelivery, WebhookFlush, WebhookResend } from '../infra/webhooks.js';
import { resolveScenarios } from '../scenarios/loader.js';
import type { Scenario } from '../scenarios/schema.js';
import { routeOf, type LibraryName } from '../http/admin/table.js';
import { readFlushArgs, readRequestQuery, readResendArgs, readWebhookArgs, type CallInput } from './library.js';

/** The virtual clock: shared, or a tenant's own when `tenant` is given. Answers ISO 8601 strings. */
export interface SimulatorClock {
  /** The virtual now (of the tenant, when named) as an ISO 8601 string. */
  now(tenant?: string): string;
  /** Moves forward by an ISO 8601 duration (`P8D`) or milliseconds: the shared clock, or the tenant's own. */
  advance(by: string | number, tenant?: string): string;
  /** Sets the time; `frozen` switches between frozen and following real time. */
  set(now: string | number | Date, frozen?: boolean, tenant?: string): string;
}

/** A tenant's own clock: forked from the shared one on its first move, then moved only by calls naming it. */
export interface TenantClock {
  /** The tenant's virtual now as an ISO 8601 string. */
  now(): string;
  /** Moves the tenant's clock forward by an ISO 8601 duration (`P8D`) or milliseconds. */
  advance(by: string | number): string;
  /** Sets the tenant's time; `frozen` switches between frozen and following real time. */
  set(now: string | number | Date, frozen?: boolean): string;
}

import type { FlushOptions, RequestQuery, WebhookFilter, WebhookQuery } from './library.js';

/**
 * One tenant's part of a simulator: its clock, its own scenario set, its journal, its tokens. Another
 * tenant's calls never change what these show. Calls on a name that is not a configured username throw
 * a SimulatorError `urlInvalid`.
 */
export interface SimulatorTenant {
  readonly name: string;
  readonly clock: TenantClock;
  /** Replaces the tenant's own scenario set (evaluated before the global one); no arguments clear it. */
  loadScenarios(...scenarios: (string | Scenario | object)[]): void;
  /** The tenant's own scenario set. */
  scenarios(): readonly Scenario[];
  /** The tenant's journal entries that pass the filter, oldest first. */
  requests(filter?: JournalFilter): JournalEntry[];
  clearRequests(): void;
  /** The tenant's live tokens, oldest first. */
  tokens(): ControlToken[];
  /** The tenant's payments, oldest first, their events caught up to its virtual now. */
  payments(): ControlPayment[];
  /** Deletes the tenant's tokens and journal and zeroes its scenario counts; its scenario set stays. */
  reset(): void;
  /** The tenant's webhook deliveries that pass the filter, oldest first. */
  webhooks(filter?: WebhookFilter): WebhookDelivery[];
  /** Resolves once none of the tenant's deliveries is queued, in flight or waiting to retry (or the wait is over). */
  flushWebhooks(options?: FlushOptions): Promise<WebhookFlush>;
  /** Sends the tenant's delivery with this id (as `webhooks()` lists it) again: the same eventId, a new delivery. */
  resendWebhook(id: string): WebhookResend;
  /** Every value that changes an outcome, the amounts of the tenant's own scenario set first. */
  magicValues(): MagicValues;
}

/** The control surface that a simulator in this process and a remote one (`connectSimulator`) share. */
export interface SimulatorControl {
  readonly clock: SimulatorClock;
  /** The request journal (one tenant's with `tenant`, or every tenant's) that passes the filter, oldest first. */
  requests(query?: RequestQuery | string): JournalEntry[];
  clearRequests(tenant?: string): void;
  /** Deletes tokens and journal (one tenant's, or all), zeroes scenario counts, then preloads configured tokens again. */
  reset(tenant?: string): void;
  /** Live tokens (one tenant's, or every tenant's), oldest first. */
  tokens(tenant?: string): ControlToken[];
  /** Payments (one tenant's, or every tenant's), oldest first, events caught up to each tenant's virtual now. */
  payments(tenant?: string): ControlPayment[];
  exportState(): StateSnapshot;
  /** Replaces the whole state; throws a SimulatorError (changing nothing) when the snapshot is not valid. */
  importState(state: unknown): void;
  /** Replaces the global scenario set with these files and scenario objects (none: clears it). */
  loadScenarios(...scenarios: (string | Scenario | object)[]): void;
  /** The global scenario set. */
  scenarios(): readonly Scenario[];
  /** Webhook deliveries (one tenant's, or every tenant's) that pass the filter, oldest first. */
  webhooks(query?: WebhookQuery | string): WebhookDelivery[];
  /** Resolves once no delivery (of the tenant, when named) is queued, in flight or waiting to retry, or the wait is over. */
  flushWebhooks(options?: FlushOptions & { tenant?: string }): Promise<WebhookFlush>;
  /** Sends the delivery with this id (as `webhooks()` lists it; the tenant's, when named) again: the same eventId, a new delivery. */
  resendWebhook(id: string, tenant?: string): WebhookResend;
  /**
   * Every value that changes an outcome, each with what it does: card holder names, card expiry, billing postal
   * codes, the amounts the active scenario rules match (with `tenant`, its own set's first) and the BIN table.
   */
  magicValues(tenant?: string): MagicValues;
  /** One tenant's handle. */
  tenant(name: string): SimulatorTenant;
}

/**
 * A node:http request listener: give it to `http.createServer`, or to supertest. Typed without node's own
 * types (which a project may not have), and assignable to node's `RequestListener` both ways: declared as a
 * method, its parameters are compared bivariantly.
 */
export type HttpHandler = { handle(req: unknown, res: unknown): void }['handle'];

/** A simulator in this process (`createSimulator`): its HTTP handlers and its control surface. */
export interface Simulator extends SimulatorControl {
  /** The simulator's one request listener (the API and /_sim), for supertest: the same function as `listener`. */
  readonly app: HttpHandler;
  /** The simulator's one request listener: what `startSimulator` serves. */
  readonly listener: HttpHandler;
}

/** The node:http server a running simulator listens with (an `http.Server`; these are the members tests use). */
export interface ListeningServer {
  address(): { address: string; family: string; port: number } | string | null;
  readonly listening: boolean;
  closeAllConnections(): void;
  closeIdleConnections(): void;
}

/** A simulator listening on a port (`startSimulator`). */
export interface RunningSimulator extends Simulator {
  /** e.g. `http://127.0.0.1:54321`, or `https://…` with `tls` */
  readonly url: string;
  readonly server: ListeningServer;
  /** With `tls` and no certificate of your own: the local CA's certificate file (PEM), for clients to trust. */
  readonly caFile: string | undefined;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** An error body received from a remote simulator, to be rethrown as it came. */
export class ReceivedError {
  constructor(readonly body: ErrorBody) {}
}

/**
 * A refusal by a library call (a bad snapshot, scenario or clock value): `errorName`, `details` (the HTTP
 * error body) and a message naming the first problem.
 */
export class SimulatorError extends Error {
  readonly errorName: string;
  readonly details: ErrorBody;
  constructor(error: unknown) {
    const body = error instanceof ReceivedError ? error.body : renderError(error).body;
    const firstProblem = body.validationErrors?.[0];
    super(firstProblem ? `${body.message}: ${firstProblem.jsonPath ?? ''} ${firstProblem.message}`.trim() : body.message);
    this.name = 'SimulatorError';
    this.errorName = body.errorName;
    this.details = body;
  }
}

/** Runs a library call; token-sim's own refusals become SimulatorErrors, bugs stay what they are. */
export function libraryCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw renderError(err).expected ? new SimulatorError(err) : err;
  }
}

type Fn = (...args: never[]) => unknown;

/** A library method as its row serves it: `read` by the row's rules; remotely `body` sent as JSON, `pages` a paged list's key; `answer` picks the result. */
interface LibraryMethod<F extends Fn> {
  read: (...args: Parameters<F>) => CallInput;
  body?: true;
  pages?: string;
  answer?: (answer: never) => Awaited<ReturnType<F>>;
}

/** The library name's method: `clock.now` SimulatorClock's `now`. */
type MethodOf<K> = K extends `clock.${infer C extends keyof SimulatorClock}` ? SimulatorClock[C] : K extends keyof SimulatorControl ? SimulatorControl[K] : never;
type MethodName = Exclude<LibraryName, 'ready'>;

const byTenant = (tenant?: string): CallInput => ({ tenant });
const now = (answer: { now: string }): string => answer.now;

/** Every library method of SimulatorControl, as its row serves it. */
export const LIBRARY_METHODS: { readonly [K in MethodName]: LibraryMethod<MethodOf<K>> } = {
  'clock.now': { read: byTenant, answer: now },
  'clock.advance': { read: (by, tenant) => ({ tenant, args: () => ({ by }) }), body: true, answer: now },
  // The time as text by the clock's rules, as `PUT /_sim/clock`'s body.
  'clock.set': { read: (at, frozen, tenant) => ({ tenant, args: () => ({ now: instantText(at), ...(frozen !== undefined && { frozen }) }) }), body: true, answer: now },
  requests: { read: readRequestQuery, pages: 'requests' },
  clearRequests: { read: byTenant },
  reset: { read: byTenant },
  tokens: { read: byTenant, pages: 'tokens' },
  payments: { read: byTenant, pages: 'payments' },
  exportState: { read: () => ({}) },
  importState: { read: (snapshot) => ({ args: () => snapshot }), body: true },
  // Remotely the files and objects go as they are (remote.ts); in process they are read here.
  loadScenarios: { read: (...items) => ({ items, args: () => ({ scenarios: resolveScenarios(items) }) }), answer: () => undefined },
  scenarios: { read: () => ({}), answer: (answer: { scenarios: Scenario[] }) => answer.scenarios },
  webhooks: { read: readWebhookArgs, pages: 'webhooks' },
  magicValues: { read: byTenant },
  flushWebhooks: { read: readFlushArgs },
  resendWebhook: { read: readResendArgs },
};

/** The methods of a tenant's handle (SimulatorTenant): the control surface's but the whole state's. */
const TENANT_METHODS = (Object.keys(LIBRARY_METHODS) as MethodName[]).filter((name) => name !== 'exportState' && name !== 'importState');

/** How a surface runs a method: its row's rules, and its arguments' reading (the tenant the handle's when it has one). */
type Run = (name: MethodName, method: LibraryMethod<Fn>, read: () => CallInput) => unknown;

/** The library's methods run by `run`, each under its library name (`clock.now` under `clock`), and `tenant(name)`'s handles. */
export function controlSurface<Surface>(run: Run): Surface {
  const methods = (names: readonly MethodName[], handle?: string): Record<string, unknown> => {
    const clock: Record<string, unknown> = {};
    const surface: Record<string, unknown> = { clock };
    for (const name of names) {
      const method = LIBRARY_METHODS[name] as unknown as LibraryMethod<(...args: unknown[]) => unknown>;
      const call = (...args: unknown[]): unknown => run(name, method, () => ({ ...method.read(...args), ...(handle !== undefined && { tenant: handle }) }));
      if (name.startsWith('clock.')) clock[name.slice('clock.'.length)] = call;
      else surface[name] = call;
    }
    return surface;
  };
  return { ...methods(Object.keys(LIBRARY_METHODS) as MethodName[]), tenant: (name: string) => ({ name, ...methods(TENANT_METHODS, name) }) } as Surface;
}

/** The control surface of a simulator in this process: its /_sim rows' calls, their links on `baseUrl`. */
export function controlFacade(deps: CallParts & { baseUrl: () => string }): SimulatorControl {
  return controlSurface<SimulatorControl>((name, method, read) => {
    const call = (): unknown => {
      const input = read();
      if (input.tenant !== undefined && !deps.isTenant(input.tenant)) throw unknownTenant();
      const answer = (routeOf(name).call as RowCall).run(deps, { tenant: input.tenant, baseUrl: deps.baseUrl() }, input.args?.() as never);
      return method.pages ? (answer as Record<string, unknown>)[method.pages] : method.answer ? method.answer(answer as never) : answer;
    };
    return name === 'flushWebhooks' ? new Promise((resolve) => resolve(libraryCall(call))) : libraryCall(call);
  });
}

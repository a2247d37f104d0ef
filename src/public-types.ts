/**
 * The public types of token-sim: everything the published declarations show, written by hand and importing
 * nothing, so that a project that installs only token-sim and typescript compiles them with `strict` and
 * `skipLibCheck: false` (no @types/node, @types/express or zod types needed). test/public-types.test.ts keeps
 * each of them equal to the type the code uses (zod schemas' outputs, the facade's interfaces), in both
 * directions. Nothing inside src/ imports this file: it belongs to the entry points (decision 0019).
 */

// ---- Options ------------------------------------------------------------------------------------------

export type Profile = 'try' | 'live';
export type LogFormat = 'pretty' | 'json' | 'silent';

/** The CLI's options in camelCase. */
export interface SimulatorOptions {
  /** Port to listen on (`startSimulator`); `0` picks a free one. Default 8080. */
  port?: number;
  /** Bind address. Default `127.0.0.1`. */
  host?: string;
  /** Lifetime profile. Default `try`. */
  profile?: Profile;
  /** ISO 8601 duration overriding the profile's token lifetime. */
  tokenLifetime?: string;
  /** ISO 8601 duration until a sale settles (and a scripted refund failure shows); P1D by default. */
  settlementDelay?: string;
  /** ISO 8601 duration overriding the profile's extension on use. */
  tokenExtension?: string;
  /** Where the virtual clock starts (ISO 8601 date-time, epoch ms or Date); real time by default. */
  now?: string | number | Date;
  /** The clock moves only when told to. */
  frozen?: boolean;
  /** Deterministic ids, refs and codes. */
  seed?: string;
  /** A fixtures file path, or the fixtures themselves. */
  fixtures?: string | Fixtures;
  /** Extra credentials `name:password` (entity `default`). */
  users?: readonly string[];
  /** Replaces `service` in the media types. */
  vendor?: string;
  /** Base of generated links; from the Host header when absent. */
  baseUrl?: string;
  /** Host names answered besides localhost, IP addresses, single-label names, `host` and the base URL's host; `*` allows any. */
  allowedHosts?: readonly string[];
  /** Origins (`scheme://host[:port]`) whose web pages may change the simulator through /_sim. */
  allowedOrigins?: readonly string[];
  /** Where payment events are POSTed (an http or https URL); a fixtures credential's own `webhookUrl` wins for its tenant. */
  webhookUrl?: string;
  /** Request log on stderr; the library defaults to `silent`, the CLI to `pretty`. */
  log?: LogFormat;
  /** Requires `Authorization: Bearer <adminToken>` on /_sim. */
  adminToken?: string;
  /** Journal entries kept per tenant (default 1000; 0 keeps none). */
  journalSize?: number;
  /** Journal entries kept across all tenants (default: 10,000, or journalSize when that is larger). */
  journalTotal?: number;
  /** The largest state snapshot `PUT /_sim/state` takes: bytes, or a size such as `256MiB` (the default). */
  stateLimit?: number | string;
  /** Scenario files (JSON or YAML) or scenario objects, active from the start. */
  scenarios?: readonly (string | object)[];
  /** ISO 8601 duration: how long `close()` lets requests in flight finish before cutting them. Default `PT65S`. */
  drainTimeout?: string;
  /** Restores the state from this file at start, and saves it there atomically (decision 0027). */
  stateFile?: string;
  /** ISO 8601 duration: how often a changed state is saved to `stateFile` (default PT10S). */
  stateInterval?: string;
  /** Seals card numbers in snapshots instead of the seed (at least 16 characters); with `stateFile`, generated beside it when absent. */
  stateKey?: string;
  /** Where the state lives: `memory` (the default) or a `redis://host:port[/db]` or `rediss://` URL. */
  store?: string;
  /** The prefix of every Redis key, so that several simulators can share one Redis. Default `token-sim:`. */
  storePrefix?: string;
}

/** Where a simulator writes its request log and reports unexpected errors (stderr by default). */
export interface SimulatorIo {
  writeErr: (line: string) => void;
  /** Whether that is a terminal (the pretty log is coloured only there). */
  isTTY?: boolean;
  /** Colour the pretty log (default: isTTY). */
  color?: boolean;
}

// ---- Fixtures and token bodies -------------------------------------------------------------------------

export interface BillingAddress {
  address1: string;
  address2?: string | undefined;
  address3?: string | undefined;
  postalCode: string;
  city: string;
  state?: string | undefined;
  countryCode: string;
}

/**
 * A `POST /tokens` body, as fixtures and scenario files preload it (the API itself also takes `null` for an
 * optional field, as absent; a file does not).
 */
export interface CreateTokenBody {
  paymentInstrument: {
    type: 'card/front';
    cardHolderName: string;
    cardNumber: string;
    cardExpiryDate: { month: number; year: number };
    billingAddress?: BillingAddress | undefined;
  };
  merchant: { entity: string };
  description?: string | undefined;
  /** ISO 8601 date-time with a time zone. */
  tokenExpiryDateTime?: string | undefined;
  namespace?: string | undefined;
  schemeTransactionReference?: string | undefined;
}

/** A preloaded token: a create body, for a tenant (the first credential when absent), maybe with a fixed id. */
export interface FixtureToken extends CreateTokenBody {
  username?: string | undefined;
  tokenId?: string | undefined;
}

export interface FixtureCredential {
  username: string;
  password: string;
  entities: string[];
  /** May read full card numbers with `Accept: <token media type>; masked=false` (default false). */
  detokenize?: boolean | undefined;
  /** Where this tenant's payment events are POSTed, instead of `webhookUrl` (an http or https URL). */
  webhookUrl?: string | undefined;
}

export interface EntityConfig {
  /** 3-letter upper-case currency codes. */
  currencies: string[];
  networks: string[];
}

export interface BinRange {
  /** Up to 8 leading digits (`4`), or a range of them (`2221-2720`). */
  prefix: string;
  network: string;
  countryCode: string;
  fundingType: string;
}

/** A fixtures document (`--fixtures`, `fixtures` option): credentials, entities, the BIN table, preloaded tokens. */
export interface Fixtures {
  credentials: FixtureCredential[];
  entities: Record<string, EntityConfig>;
  bins: BinRange[];
  tokens?: FixtureToken[] | undefined;
}

// ---- Scenarios -----------------------------------------------------------------------------------------

/** The operations of the simulated API, as scenario rules and the journal name them. */
export type ApiOperation =
  | 'createToken'
  | 'getToken'
  | 'updateToken'
  | 'deleteToken'
  | 'queryTokens'
  | 'sale'
  | 'refund'
  | 'partialRefund'
  | 'reversal'
  | 'paymentEvents';

export type ScenarioOperation = ApiOperation | 'any';

/** When a rule applies: every predicate given must hold. */
export interface RuleWhen {
  operation?: ScenarioOperation | undefined;
  username?: string | undefined;
  entity?: string | undefined;
  namespace?: string | undefined;
  cardNumber?: string | undefined;
  cardHolderName?: string | undefined;
  currency?: string | undefined;
  transactionReference?: string | undefined;
  /** An amount in minor units, or a range of them. */
  amount?: number | { min?: number | undefined; max?: number | undefined } | undefined;
  /** Only the nth matching request (1-based, per tenant). */
  nth?: number | undefined;
  /** Every nth matching request. */
  every?: number | undefined;
  /** Stop applying after this many applications (per tenant). */
  times?: number | undefined;
  /** Applies with this probability (0 to 1), drawn from the tenant's seeded stream. */
  chance?: number | undefined;
  /** Virtual time window (ISO 8601). */
  between?: { from?: string | undefined; until?: string | undefined } | undefined;
}

export interface RiskFactor {
  risk: 'not_checked' | 'not_matched' | 'not_supplied';
  detail: 'address' | 'postcode';
}

/** What a rule does: at least one of these. */
export interface RuleThen {
  /** Milliseconds, or a distribution drawn from at each application. */
  delayMs?: number | { uniform: [number, number] } | { lognormal: { median: number; sigma: number } } | undefined;
  error?: { status: number; errorName: string; message?: string | undefined } | undefined;
  fault?: 'connectionReset' | 'noResponse' | undefined;
  outcome?:
    | { outcome: 'sentForSettlement' | 'refused'; refusalCode?: string | undefined; refusalDescription?: string | undefined }
    | undefined;
  riskFactors?: RiskFactor[] | undefined;
  /** The sale's settlement fails: `settlementFailed` instead of `settled`. */
  settlement?: 'failed' | undefined;
  /** The sale's refunds (or the refund the rule matches) end in `refundFailed` with this refusal. */
  refund?: { failed: { code: string; description: string } } | undefined;
}

export interface Rule {
  /** Shown in the journal. */
  id?: string | undefined;
  when?: RuleWhen | undefined;
  then: RuleThen;
}

/** A scenario, as a scenario file (JSON or YAML) or the library's `loadScenarios` takes it. */
export interface Scenario {
  name: string;
  description?: string | undefined;
  profile?: Profile | undefined;
  tokens?: FixtureToken[] | undefined;
  rules?: Rule[] | undefined;
}

// ---- State snapshots -----------------------------------------------------------------------------------

export interface ClockState {
  /** ISO 8601. */
  now: string;
  frozen: boolean;
}

export interface ExpiryDate {
  month: number;
  year: number;
}

/** One token in a snapshot: its card number sealed with the simulator's keys. */
export interface TokenState {
  tenant: string;
  tokenId: string;
  entity: string;
  namespace?: string | undefined;
  description: string;
  maskedCardNumber?: string | undefined;
  sealedCardNumber: string;
  cardHolderName: string;
  cardExpiryDate: ExpiryDate;
  billingAddress?: BillingAddress | undefined;
  network: string;
  countryCode: string;
  fundingType: string;
  schemeTransactionReference?: string | undefined;
  createdAt: string;
  expiresAt: string;
  lifetimeMs: number;
  extension?: string | undefined;
  conflict?:
    | {
        values: {
          cardHolderName?: string | undefined;
          cardExpiryDate?: ExpiryDate | undefined;
          billingAddress?: BillingAddress | undefined;
          schemeTransactionReference?: string | undefined;
        };
        expiresAt: string;
      }
    | undefined;
}

export interface RuleCounts {
  matches: number;
  applications: number;
}

/** `exportState()` / `GET /_sim/state`: every token, the clocks, the counters and tenants' scenario sets. */
export interface StateSnapshot {
  format: 'token-sim-state';
  version: 1;
  clock: ClockState;
  tenantClocks: Record<string, ClockState>;
  counters: {
    ids: Record<string, number>;
    scenarios?: Record<string, Record<string, RuleCounts>> | undefined;
    /** The counts of tenants' own scenario sets: tenant → rule label → counts. */
    tenantScenarios?: Record<string, Record<string, RuleCounts>> | undefined;
  };
  tokens: TokenState[];
  /** Tenants' own scenario sets. */
  scenarios?: Record<string, Scenario[]> | undefined;
  /** Payments with their events and what the clock will bring. */
  payments?: PaymentState[] | undefined;
}

export type PaymentEventType = 'sentForSettlement' | 'settled' | 'settlementFailed' | 'cancelled' | 'sentForRefund' | 'refundFailed' | 'refused';

export interface PaymentEventState {
  /** The event's number within its payment (its webhook's eventId is derived from it). */
  seq: number;
  type: PaymentEventType;
  at: string;
  amount: number;
  reference?: string | undefined;
  refusal?: { code: string; description: string } | undefined;
}

/** A payment in a snapshot. */
export interface PaymentState {
  tenant: string;
  paymentId: string;
  transactionReference: string;
  entity: string;
  currency: string;
  amount: number;
  createdAt: string;
  origin?: string | undefined;
  settlement: 'none' | 'pending' | 'settled' | 'failed' | 'cancelled';
  refunded: number;
  refundRequested: boolean;
  reversed: boolean;
  script: { settlementFails?: boolean | undefined; refundFailure?: { code: string; description: string } | undefined };
  events: PaymentEventState[];
  scheduled: PaymentEventState[];
  eventCount: number;
}

// ---- The journal ---------------------------------------------------------------------------------------

/** A journaled request's operation: `unknown` for a request no route took. */
export type Operation = ApiOperation | 'unknown';

/** One request in the journal: what was asked and answered, card data masked, credentials never kept. */
export interface JournalEntry {
  /** Order in which answers were recorded (finished) in this simulator. */
  seq: number;
  /** The Basic-auth username; null when the request was not authenticated. */
  tenant: string | null;
  operation: Operation;
  method: string;
  path: string;
  /** The HTTP status of the answer (0: unanswered). */
  status: number;
  errorName?: string;
  correlationId: string;
  /** The tenant's virtual time and the real time when the answer was sent. */
  virtualTime: string;
  realTime: string;
  durationMs: number;
  /** The scenario rule that shaped the answer, if any. */
  rule: string | null;
  /** The query string (without `?`), card data masked; absent when there was none. */
  query?: string;
  /** The kept request headers (Host, Accept, Content-Type, Content-Encoding, Content-Length, Correlation-Id or WP-CorrelationId) that were sent, masked. */
  requestHeaders: Record<string, string>;
  /** The request body if it was JSON, masked; a note when it was too large to keep; absent when there was none. */
  requestBody?: unknown;
  /** The request body if it was not JSON, as masked text. */
  requestText?: string;
  /** The answer's headers as sent, masked; empty when the request was not answered. */
  responseHeaders: Record<string, string>;
  /** The answer's body if it was JSON, masked; a note when it was too large to keep; absent when there was none. */
  responseBody?: unknown;
  /** The answer's body if it was not JSON, as masked text. */
  responseText?: string;
}

// ---- Webhook deliveries --------------------------------------------------------------------------------

export type WebhookState = 'pending' | 'delivered' | 'failed';

/** One webhook delivery as the log shows it (docs/webhooks.md). */
export interface WebhookDelivery {
  /** Position in the log (a cursor for paging). */
  seq: number;
  eventId: string;
  type: string;
  url: string;
  tenant: string;
  attempts: number;
  /** The HTTP status of the last attempt, or null (no attempt yet, or a network error or timeout). */
  lastStatus: number | null;
  /** Why the last attempt failed, or null. */
  lastError: string | null;
  state: WebhookState;
  /** Real time (ISO 8601): when it was queued, last tried, delivered or given up. */
  enqueuedAt: string;
  lastAttemptAt: string | null;
  finishedAt: string | null;
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

/** What a flush found: whether the queue emptied, and how many deliveries are still pending. */
export interface WebhookFlush {
  flushed: boolean;
  pending: number;
}

// ---- Errors --------------------------------------------------------------------------------------------

/** The standard error body of the API and /_sim. */
export interface ErrorBody {
  errorName: string;
  message: string;
  headerName?: string;
  validationErrors?: { errorName: string; message: string; jsonPath?: string }[];
}

/** A refusal by a library call (a bad snapshot, scenario or clock value): the HTTP error body's content. */
export interface SimulatorError extends Error {
  readonly errorName: string;
  readonly details: ErrorBody;
}
export interface SimulatorErrorConstructor {
  new (error: unknown): SimulatorError;
  readonly prototype: SimulatorError;
}

/** Bad options, fixtures or scenario files given when a simulator is created. */
export type ConfigError = Error;
export interface ConfigErrorConstructor {
  new (message: string): ConfigError;
  readonly prototype: ConfigError;
}

export interface FileProblem {
  jsonPath: string;
  message: string;
}
/** A scenario file that cannot be read or is invalid: every problem with its JSONPath. */
export interface ScenarioFileError extends ConfigError {
  readonly problems: FileProblem[];
}
export interface ScenarioFileErrorConstructor {
  new (path: string, problems: FileProblem[]): ScenarioFileError;
  readonly prototype: ScenarioFileError;
}

// ---- Simulators ----------------------------------------------------------------------------------------

/**
 * A node:http request listener: give it to `http.createServer`, or to supertest. Typed without node's own
 * types (which a project may not have), and assignable to node's `RequestListener` both ways: declared as a
 * method, its parameters are compared bivariantly.
 */
export type HttpHandler = { handle(req: unknown, res: unknown): void }['handle'];

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

/** A token as the control plane lists it (`/_sim/tokens`): the API's view of it, its tenant, card data masked. */
export interface ControlToken {
  tenant: string;
  tokenId: string;
  [field: string]: unknown;
}

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

/** Which journal entries to list (`GET /_sim/requests` takes the same as query parameters); all must hold. */
export interface JournalFilter {
  operation?: Operation;
  /** The HTTP status of the answer (0: unanswered). */
  status?: number;
  /** The request method, in any case. */
  method?: string;
  /** The id of the scenario rule that applied. */
  rule?: string;
  /** Only entries recorded after the one with this `seq` (exclusive): poll with the last `seq` seen. */
  since?: number;
  /** At most this many entries, the oldest matching first. */
  limit?: number;
}

/** The journal filter with the tenant to read (every tenant's entries when absent). */
export interface RequestQuery extends JournalFilter {
  tenant?: string;
}

/**
 * One tenant's part of a simulator: its clock, its own scenario set, its journal, its tokens. Another
 * tenant's calls never change what these show.
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
  /** One tenant's handle. */
  tenant(name: string): SimulatorTenant;
}

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
  /** e.g. `http://127.0.0.1:54321` */
  readonly url: string;
  readonly server: ListeningServer;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

// ---- Test-runner helpers (token-sim/jest, token-sim/vitest) ------------------------------------------------

/** The options of the Jest and Vitest global set-ups: a simulator's options, and users for one tenant per worker. */
export interface TestRunnerOptions extends SimulatorOptions {
  /**
   * Adds the users `worker-1` … `worker-<workers>`, password `secret`: one tenant per test worker (Jest's
   * JEST_WORKER_ID, Vitest's VITEST_POOL_ID). Default 32; 0 adds none.
   */
  workers?: number;
}

/** This worker's tenant: `worker-<JEST_WORKER_ID or VITEST_POOL_ID>`, and its Basic credentials. */
export interface WorkerTenant {
  name: string;
  password: string;
  /** `Basic …`, for the Authorization header. */
  authorization: string;
}

// ---- Remote control (connectSimulator) -------------------------------------------------------------------

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

/** TenantClock's calls over HTTP. */
export interface RemoteTenantClock {
  now(): Promise<string>;
  advance(by: string | number): Promise<string>;
  set(now: string | number | Date, frozen?: boolean): Promise<string>;
}

/** `tenant(name)` of a remote simulator: SimulatorTenant's calls, each answering a promise. */
export interface RemoteTenant {
  readonly name: string;
  readonly clock: RemoteTenantClock;
  loadScenarios(...scenarios: (string | Scenario | object)[]): Promise<void>;
  scenarios(): Promise<readonly Scenario[]>;
  requests(filter?: JournalFilter): Promise<JournalEntry[]>;
  clearRequests(): Promise<void>;
  tokens(): Promise<ControlToken[]>;
  payments(): Promise<ControlPayment[]>;
  reset(): Promise<void>;
  webhooks(filter?: WebhookFilter): Promise<WebhookDelivery[]>;
  flushWebhooks(options?: FlushOptions): Promise<WebhookFlush>;
}

/** SimulatorClock's calls over HTTP. */
export interface RemoteClock {
  now(tenant?: string): Promise<string>;
  advance(by: string | number, tenant?: string): Promise<string>;
  set(now: string | number | Date, frozen?: boolean, tenant?: string): Promise<string>;
}

/** A simulator reached over HTTP (`connectSimulator`): SimulatorControl's calls, each answering a promise. */
export interface RemoteSimulator {
  readonly url: string;
  readonly clock: RemoteClock;
  requests(query?: RequestQuery | string): Promise<JournalEntry[]>;
  clearRequests(tenant?: string): Promise<void>;
  reset(tenant?: string): Promise<void>;
  tokens(tenant?: string): Promise<ControlToken[]>;
  payments(tenant?: string): Promise<ControlPayment[]>;
  exportState(): Promise<StateSnapshot>;
  importState(state: unknown): Promise<void>;
  loadScenarios(...scenarios: (string | Scenario | object)[]): Promise<void>;
  scenarios(): Promise<readonly Scenario[]>;
  webhooks(query?: WebhookQuery | string): Promise<WebhookDelivery[]>;
  flushWebhooks(options?: FlushOptions & { tenant?: string }): Promise<WebhookFlush>;
  /** One tenant's handle (no request is made until a call). */
  tenant(name: string): RemoteTenant;
  /** Resolves once `/_sim/health` answers ok, retrying for up to `timeoutMs` (default 10 s). */
  ready(timeoutMs?: number): Promise<void>;
}

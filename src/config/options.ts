/** Simulator options (the CLI's, in camelCase) and their resolution into a checked configuration: how each value is read. */
import type { EntityConfiguration, Merchants } from '../domain/ports.js';
import { addDuration, parseDuration, isPositiveDuration, isInRange, type Duration } from '../domain/duration.js';
import { parseInstant, readInstant } from '../wire/instant.js';
import { ConfigError, DEFAULT_FIXTURES_PATH, isWebhookUrl, loadFixturesFile, parseFixtures, type Fixtures } from './fixtures.js';
import { DEFAULT_STORE_PREFIX, resolveStore, resolveStorePrefix } from './store.js';
import { DEFAULT_TLS_DIR, readPem, resolveTls, resolveWebhookClient, type TlsOptions } from './tls.js';

export type Profile = 'try' | 'live';
export type LogFormat = 'pretty' | 'json' | 'silent';

/** The CLI's options in camelCase. */
export interface SimulatorOptions extends TlsOptions {
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
  /** A PEM CA certificate file trusted for https webhook receivers, besides the system store. */
  webhookCa?: string;
  /** A PEM certificate file webhook deliveries present to https receivers that ask for one (with `webhookClientKey`). */
  webhookClientCert?: string;
  /** The PEM private key file of `webhookClientCert`. */
  webhookClientKey?: string;
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

/** Where a tenant's payment events go: its credential's own URL, else the global one, else nowhere. */
export function webhookUrlFor(config: Pick<SimulatorConfig, 'credentials' | 'webhookUrl'>, tenant: string): string | undefined {
  return config.credentials.get(tenant)?.webhookUrl ?? config.webhookUrl;
}

/** The merchant directory: which entities a credential may use, and how each entity is configured. */
export function createMerchants(config: Pick<SimulatorConfig, 'credentials' | 'fixtures'>): Merchants {
  const entities = new Map<string, EntityConfiguration>(
    Object.entries(config.fixtures.entities).map(([name, e]) => [name, { currencies: new Set(e.currencies), networks: new Set(e.networks) }]),
  );
  return {
    entityFor: (tenant, entity) => (config.credentials.get(tenant)?.entities.has(entity) ? entities.get(entity) : undefined),
  };
}

/**
 * Each option's default where the library applies one, declared once: resolveConfig applies them, and the CLI's
 * `--help` and docs/cli.md show them. `drainTimeout` is longer than the longest scripted delay (60 s), so that a
 * stop never cuts one by default.
 */
export const DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  profile: 'try',
  vendor: 'service',
  settlementDelay: 'P1D',
  journalSize: 1000,
  journalTotal: 10_000,
  stateLimit: '256MiB',
  drainTimeout: 'PT65S',
  stateInterval: 'PT10S',
  storePrefix: DEFAULT_STORE_PREFIX,
  tlsDir: DEFAULT_TLS_DIR,
} as const;

const STATE_INTERVAL = 'an ISO 8601 duration of at least 10 ms such as PT10S';
/** A shorter passphrase is too easy to guess. */
const MIN_STATE_KEY_CHARS = 16;

const PROFILES: Record<Profile, { lifetime: string; extension: string }> = {
  try: { lifetime: 'P7D', extension: 'P7D' },
  live: { lifetime: 'P4Y', extension: 'P4Y' },
};

export function profileDurations(profile: Profile): { lifetime: Duration; extension: Duration } {
  const p = PROFILES[profile];
  return { lifetime: durationOption('lifetime', p.lifetime), extension: durationOption('extension', p.extension) };
}

/** An option's refusal, unless `ok`: `${flag} must be ${what}, got '…'`. */
function check(ok: unknown, flag: string, what: string, got: unknown): asserts ok {
  if (!ok) throw new ConfigError(`${flag} must be ${what}, got '${String(got)}'`);
}

/** An ISO 8601 duration that `ok` takes. */
function durationOption(name: string, text: string, what = 'a positive ISO 8601 duration such as P7D', ok = isPositiveDuration): Duration {
  const d = parseDuration(text);
  check(d && ok(d), name, what, text);
  return d;
}

/** Past about 512 MiB a snapshot's text no longer fits in one JavaScript string. */
const MAX_STATE_LIMIT = 512 * 1024 * 1024;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes from a number or a size such as `256MiB`, `300 MB`, `1048576`; undefined when it is none. */
function parseSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `--now`: an instant (ISO 8601 text as parseInstant reads it, epoch milliseconds or a Date) inside the clock's range. */
function startOf(now: string | number | Date): number {
  const start = typeof now === 'string' ? parseInstant(now) : Number(now);
  if (start === undefined || !Number.isFinite(start)) {
    // A well-formed date that does not exist (2030-02-31) says why.
    const reading = typeof now === 'string' ? readInstant(now, 'dateOrDateTime') : undefined;
    const why = reading?.ok === false && reading.reason !== undefined ? `: ${reading.reason}` : '';
    throw new ConfigError(`--now must be an ISO 8601 date-time such as 2030-01-01T00:00:00Z, got '${String(now)}'${why}`);
  }
  check(isInRange(start), '--now', "inside the clock's range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z", now);
  return start;
}

/** `--base-url`: an http(s) URL, without trailing slashes. */
function baseUrlOf(baseUrl: string): string {
  check(URL.canParse(baseUrl) && /^https?:/i.test(baseUrl), '--base-url', 'an http(s) URL', baseUrl);
  return baseUrl.replace(/\/+$/, '');
}

/** An `--allowed-host`: a host name or `*`, lower-cased. */
function allowedHostOf(name: string): string {
  check(name === '*' || /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/i.test(name), '--allowed-host', 'a host name (no scheme, no port) or *', name);
  return name.toLowerCase();
}

/** An `--allowed-origin`: scheme, host and port only. */
function allowedOriginOf(origin: string): string {
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
  const ok = parsed && /^https?:$/.test(parsed.protocol) && parsed.origin === origin.toLowerCase().replace(/\/$/, '');
  check(ok, '--allowed-origin', 'an origin such as http://localhost:3000 (scheme, host and port only)', origin);
  return parsed.origin;
}

/** The fixtures' credentials (decisions 0030, 0031) and the `--user`s (entity `default`), each entity configured. */
function resolveCredentials(fixtures: Fixtures, users: readonly string[]) {
  const fromUser = (user: string) => {
    const colon = user.indexOf(':');
    check(colon >= 1, '--user', 'name:password', user);
    return [user.slice(0, colon), { password: user.slice(colon + 1), entities: ['default'], detokenize: false, webhookUrl: undefined }] as const;
  };
  const credentials = new Map(
    [...fixtures.credentials.map((c) => [c.username, c] as const), ...users.map(fromUser)].map(([username, c]) => [
      username,
      { password: c.password, entities: new Set(c.entities), detokenize: c.detokenize === true, webhookUrl: c.webhookUrl },
    ]),
  );
  for (const [username, { entities }] of credentials) {
    const missing = [...entities].find((entity) => !Object.hasOwn(fixtures.entities, entity));
    if (missing !== undefined) throw new ConfigError(`credential '${username}' names the entity '${missing}', which the fixtures' entities do not configure`);
  }
  return credentials;
}

export type SimulatorConfig = ReturnType<typeof resolveConfig>;

export function resolveConfig(options: SimulatorOptions = {}) {
  const profile = options.profile ?? DEFAULTS.profile;
  check(profile in PROFILES, '--profile', 'try or live', profile);
  const port = options.port ?? DEFAULTS.port;
  check(Number.isInteger(port) && port >= 0 && port <= 65535, '--port', '0 to 65535', port);
  const start = options.now === undefined ? undefined : startOf(options.now);
  const vendor = options.vendor ?? DEFAULTS.vendor;
  check(/^[a-z0-9][a-z0-9.-]*$/i.test(vendor), '--vendor', 'letters, digits, dots or dashes', vendor);
  const baseUrl = options.baseUrl === undefined ? undefined : baseUrlOf(options.baseUrl);
  const allowedHosts = (options.allowedHosts ?? []).map(allowedHostOf);
  const allowedOrigins = (options.allowedOrigins ?? []).map(allowedOriginOf);
  const journalSize = options.journalSize ?? DEFAULTS.journalSize;
  check(Number.isInteger(journalSize) && journalSize >= 0, '--journal-size', 'a whole number', journalSize);
  const journalTotal = options.journalTotal ?? Math.max(DEFAULTS.journalTotal, journalSize);
  check(Number.isInteger(journalTotal) && journalTotal >= 0, '--journal-total', 'a whole number', journalTotal);
  const stateLimit = parseSize(options.stateLimit ?? DEFAULTS.stateLimit);
  check(stateLimit !== undefined && stateLimit >= 1024 * 1024 && stateLimit <= MAX_STATE_LIMIT, '--state-limit', 'a size from 1MiB to 512MiB such as 256MiB', options.stateLimit);
  if (options.adminToken !== undefined && !/^\S+$/.test(options.adminToken)) {
    throw new ConfigError('--admin-token must be a non-empty string without spaces');
  }
  if (options.stateKey !== undefined && (options.stateKey.length < MIN_STATE_KEY_CHARS || options.stateKey.trim() !== options.stateKey)) {
    throw new ConfigError(`--state-key must be at least ${MIN_STATE_KEY_CHARS} characters, without leading or trailing spaces`);
  }
  if (options.stateFile !== undefined && options.stateFile.trim() === '') throw new ConfigError('--state-file must be a path');
  check(options.webhookUrl === undefined || isWebhookUrl(options.webhookUrl), '--webhook-url', 'an absolute http or https URL', options.webhookUrl);
  const store = resolveStore(options.store);
  const storePrefix = resolveStorePrefix(options.storePrefix);
  const log = options.log ?? 'silent';
  check(['pretty', 'json', 'silent'].includes(log), '--log', 'pretty, json or silent', log);
  const fixtures =
    typeof options.fixtures === 'object'
      ? parseFixtures(options.fixtures, 'object')
      : loadFixturesFile(options.fixtures ?? DEFAULT_FIXTURES_PATH);
  const defaults = PROFILES[profile];
  const credentials = resolveCredentials(fixtures, options.users ?? []);
  return {
    port,
    host: options.host ?? DEFAULTS.host,
    profile,
    lifetime: durationOption('--token-lifetime', options.tokenLifetime ?? defaults.lifetime),
    extension: durationOption('--token-extension', options.tokenExtension ?? defaults.extension),
    // Set by --token-lifetime / --token-extension: a scenario's profile then leaves them alone.
    lifetimeFixed: options.tokenLifetime !== undefined,
    extensionFixed: options.tokenExtension !== undefined,
    settlementDelay: durationOption('--settlement-delay', options.settlementDelay ?? DEFAULTS.settlementDelay),
    start,
    frozen: options.frozen ?? false,
    seed: options.seed,
    vendor,
    baseUrl,
    allowedHosts,
    allowedOrigins,
    log,
    adminToken: options.adminToken,
    journalSize,
    journalTotal,
    stateLimit,
    credentials,
    fixtures,
    drainTimeoutMs: addDuration(0, durationOption('--drain-timeout', options.drainTimeout ?? DEFAULTS.drainTimeout, 'an ISO 8601 duration such as PT65S', () => true)),
    stateFile: options.stateFile,
    stateIntervalMs: addDuration(0, durationOption('--state-interval', options.stateInterval ?? DEFAULTS.stateInterval, STATE_INTERVAL, (d) => addDuration(0, d) >= 10)),
    stateKey: options.stateKey,
    webhookUrl: options.webhookUrl,
    webhookCa: options.webhookCa === undefined ? undefined : readPem('--webhook-ca', options.webhookCa, 'CERTIFICATE'),
    webhookClient: resolveWebhookClient(options),
    tls: resolveTls(options),
    // `url` may hold a password: print describeStore(store).
    store,
    storePrefix,
  };
}

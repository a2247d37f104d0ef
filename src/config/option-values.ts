/** How resolveConfig (options.ts) reads option values: sizes, instants, URLs, hosts, origins, credentials. */
import { isInRange } from '../domain/time-range.js';
import { parseInstant, readInstant } from '../wire/instant.js';
import { ConfigError, type Fixtures } from './fixtures.js';

/** A configured user: a fixtures credential or a `--user`. */
export interface Credential {
  password: string;
  entities: ReadonlySet<string>;
  /** May detokenize (`masked=false`): only a fixtures credential with `detokenize: true` (decision 0031). */
  detokenize: boolean;
  /** The fixtures credential's own webhook receiver (decision 0030). */
  webhookUrl: string | undefined;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes from a number or a size such as `256MiB`, `300 MB`, `1048576`; undefined when it is none. */
export function parseSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `--now`: an instant (ISO 8601 text as parseInstant reads it, epoch milliseconds or a Date) inside the clock's range. */
export function startOf(now: string | number | Date): number {
  const start = typeof now === 'string' ? parseInstant(now) : Number(now);
  if (start === undefined || !Number.isFinite(start)) {
    // A well-formed date that does not exist (2030-02-31) says why.
    const reading = typeof now === 'string' ? readInstant(now, 'dateOrDateTime') : undefined;
    const why = reading?.ok === false && reading.reason !== undefined ? `: ${reading.reason}` : '';
    throw new ConfigError(`--now must be an ISO 8601 date-time such as 2030-01-01T00:00:00Z, got '${String(now)}'${why}`);
  }
  if (!isInRange(start)) {
    throw new ConfigError(`--now must be inside the clock's range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, got '${String(now)}'`);
  }
  return start;
}

/** `--base-url`: an http(s) URL, without trailing slashes. */
export function baseUrlOf(baseUrl: string): string {
  if (!URL.canParse(baseUrl) || !/^https?:/i.test(baseUrl)) throw new ConfigError(`--base-url must be an http(s) URL, got '${baseUrl}'`);
  return baseUrl.replace(/\/+$/, '');
}

/** An `--allowed-host`: a host name or `*`, lower-cased. */
export function allowedHostOf(name: string): string {
  if (name !== '*' && !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/i.test(name)) {
    throw new ConfigError(`--allowed-host must be a host name (no scheme, no port) or *, got '${name}'`);
  }
  return name.toLowerCase();
}

/** An `--allowed-origin`: scheme, host and port only. */
export function allowedOriginOf(origin: string): string {
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.toLowerCase().replace(/\/$/, '')) {
    throw new ConfigError(`--allowed-origin must be an origin such as http://localhost:3000 (scheme, host and port only), got '${origin}'`);
  }
  return parsed.origin;
}

/** The fixtures' credentials and the `--user`s (entity `default`); every entity they name must be configured in the fixtures. */
export function resolveCredentials(fixtures: Fixtures, users: readonly string[]): Map<string, Credential> {
  const credentials = new Map<string, Credential>();
  for (const c of fixtures.credentials) {
    credentials.set(c.username, { password: c.password, entities: new Set(c.entities), detokenize: c.detokenize === true, webhookUrl: c.webhookUrl });
  }
  for (const user of users) {
    const colon = user.indexOf(':');
    if (colon < 1) throw new ConfigError(`--user must be name:password, got '${user}'`);
    credentials.set(user.slice(0, colon), { password: user.slice(colon + 1), entities: new Set(['default']), detokenize: false, webhookUrl: undefined });
  }
  for (const [username, credential] of credentials) {
    for (const entity of credential.entities) {
      if (!Object.hasOwn(fixtures.entities, entity)) {
        throw new ConfigError(`credential '${username}' names the entity '${entity}', which the fixtures' entities do not configure`);
      }
    }
  }
  return credentials;
}

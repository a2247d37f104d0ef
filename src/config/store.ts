/** `--store` and `--store-prefix`, checked; the store itself is picked in store/stores.ts (decisions 0038, 0050). */
import { ConfigError } from './fixtures.js';

export type StoreConfig = { kind: 'memory' } | { kind: 'redis'; url: string; db: number; tls: boolean };

export const DEFAULT_STORE_PREFIX = 'token-sim:';

/** Redis's default `databases` setting: SELECT 0 to 15. */
const MAX_DB = 15;

const SHAPE = '--store must be memory or a redis://host:port[/db] or rediss:// URL';

/** A Redis URL with its password (if any) replaced by `***`: for the banner, errors and logs. */
export function maskStoreUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:)[^/?#]*@/i, '$1***@');
}

/** `memory`, or the masked URL: how the banner and messages name a store. */
export function describeStore(store: StoreConfig): string {
  return store.kind === 'memory' ? 'memory' : maskStoreUrl(store.url);
}

/** `redis://[user][:password@]host[:port][/db]` (rediss:// for TLS) → its store; every refusal one line, masked. */
export function resolveStore(text: string | undefined): StoreConfig {
  if (text === undefined || text === 'memory') return { kind: 'memory' };
  const got = `, got '${maskStoreUrl(text)}'`;
  const scheme = /^(rediss?):\/\//i.exec(text);
  // Whitespace, control characters, a query or a fragment: not a URL this option takes.
  if (!scheme || /[\s\p{Cc}?#]/u.test(text)) throw new ConfigError(SHAPE + got);
  const authority = /^rediss?:\/\/(?:[^/]*@)?(\[[^\]/]*\]|[^:/]*)(?::([^/]*))?(?:\/(.*))?$/i.exec(text);
  const [, host = '', port, db] = authority ?? [];
  if (host === '' || host === '[]') throw new ConfigError(`--store must name a host: redis://host:port[/db]${got}`);
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    throw new ConfigError(`--store must have a port from 1 to 65535${got}`);
  }
  if (db !== undefined && db !== '' && (!/^\d{1,2}$/.test(db) || Number(db) > MAX_DB)) {
    throw new ConfigError(`--store must end with a database number from 0 to ${MAX_DB} (redis://host:port/0)${got}`);
  }
  if (!URL.canParse(text)) throw new ConfigError(SHAPE + got);
  return { kind: 'redis', url: text, db: db === undefined || db === '' ? 0 : Number(db), tls: scheme[1]!.toLowerCase() === 'rediss' };
}

/** The prefix every Redis key of this simulator starts with: not empty, no whitespace or control characters. */
export function resolveStorePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return DEFAULT_STORE_PREFIX;
  if (!/^[^\s\p{Cc}]+$/u.test(prefix)) {
    throw new ConfigError(`--store-prefix must be a non-empty string without spaces or control characters, got ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

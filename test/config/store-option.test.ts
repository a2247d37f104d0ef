/**
 * `--store` and `--store-prefix` as the configuration resolves them: memory or a Redis URL (rediss:// for
 * TLS, an optional database number), the key prefix, and one precise line for each refusal, which never
 * shows a password (decision 0038).
 */
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../src/config/fixtures.js';
import { resolveConfig, type SimulatorOptions } from '../../src/config/options.js';
import { describeStore, maskStoreUrl } from '../../src/config/store.js';

const FIXTURES = { credentials: [{ username: 'm', password: 'p', entities: ['default'] }], entities: { default: { currencies: [], networks: [] } }, bins: [] };
const resolve = (options: SimulatorOptions) => resolveConfig({ fixtures: FIXTURES, ...options });

/** The message resolveConfig refuses these options with. */
function refusal(options: SimulatorOptions): string {
  try {
    resolve(options);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('resolveConfig took it');
}

describe('--store', () => {
  it('is memory by default, and by name', () => {
    expect(resolve({}).store).toEqual({ kind: 'memory' });
    expect(resolve({ store: 'memory' }).store).toEqual({ kind: 'memory' });
  });

  it.each([
    ['redis://127.0.0.1:6379', { kind: 'redis', url: 'redis://127.0.0.1:6379', db: 0, tls: false }],
    ['redis://127.0.0.1:6379/', { kind: 'redis', url: 'redis://127.0.0.1:6379/', db: 0, tls: false }],
    ['redis://redis.internal', { kind: 'redis', url: 'redis://redis.internal', db: 0, tls: false }],
    ['redis://127.0.0.1:6379/3', { kind: 'redis', url: 'redis://127.0.0.1:6379/3', db: 3, tls: false }],
    ['rediss://cache.example.com:6380/15', { kind: 'redis', url: 'rediss://cache.example.com:6380/15', db: 15, tls: true }],
    ['REDIS://h:1/0', { kind: 'redis', url: 'REDIS://h:1/0', db: 0, tls: false }],
    ['redis://:s3cret@h:6379/1', { kind: 'redis', url: 'redis://:s3cret@h:6379/1', db: 1, tls: false }],
    ['redis://app:s3cret@[::1]:6379', { kind: 'redis', url: 'redis://app:s3cret@[::1]:6379', db: 0, tls: false }],
  ])('takes %s', (store, expected) => {
    expect(resolve({ store }).store).toEqual(expected);
  });

  it.each([
    ['ftp://x', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got 'ftp://x'"],
    ['Memory', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got 'Memory'"],
    ['127.0.0.1:6379', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got '127.0.0.1:6379'"],
    ['', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got ''"],
    ['redis://h:6379?db=2', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got 'redis://h:6379?db=2'"],
    ['redis://h:6379/0 ', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got 'redis://h:6379/0 '"],
    ['redis://', "--store must name a host: redis://host:port[/db], got 'redis://'"],
    ['redis://:6379/0', "--store must name a host: redis://host:port[/db], got 'redis://:6379/0'"],
    ['redis://h:0', "--store must have a port from 1 to 65535, got 'redis://h:0'"],
    ['redis://h:65536', "--store must have a port from 1 to 65535, got 'redis://h:65536'"],
    ['redis://h:port', "--store must have a port from 1 to 65535, got 'redis://h:port'"],
    ['redis://h:', "--store must have a port from 1 to 65535, got 'redis://h:'"],
    ['redis://h:6379/16', "--store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://h:6379/16'"],
    ['redis://h:6379/x', "--store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://h:6379/x'"],
    ['redis://h:6379/0/1', "--store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://h:6379/0/1'"],
    ['redis://h:6379/-1', "--store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://h:6379/-1'"],
  ])('refuses %p with one line', (store, message) => {
    expect(refusal({ store })).toBe(message);
  });

  it.each([
    ['redis://:hunter2@h:70000', "--store must have a port from 1 to 65535, got 'redis://:***@h:70000'"],
    ['redis://app:hunter2@h:6379/99', "--store must end with a database number from 0 to 15 (redis://host:port/0), got 'redis://app:***@h:6379/99'"],
    ['redis://:hunter2@:6379', "--store must name a host: redis://host:port[/db], got 'redis://:***@:6379'"],
    ['ftp://app:hunter2@h', "--store must be memory or a redis://host:port[/db] or rediss:// URL, got 'ftp://app:***@h'"],
  ])('masks the password of %p in its refusal', (store, message) => {
    const text = refusal({ store });
    expect(text).toBe(message);
    expect(text).not.toContain('hunter2');
  });
});

describe('the masked store', () => {
  it.each([
    ['redis://:hunter2@h:6379/1', 'redis://:***@h:6379/1'],
    ['rediss://app:hunter2@h:6380', 'rediss://app:***@h:6380'],
    ['redis://:p@ss:w@rd@h:6379', 'redis://:***@h:6379'],
    ['redis://app@h:6379', 'redis://app@h:6379'],
    ['redis://h:6379/0', 'redis://h:6379/0'],
  ])('shows %s as %s', (url, masked) => {
    expect(maskStoreUrl(url)).toBe(masked);
  });

  it('names memory, or the URL without its password', () => {
    expect(describeStore({ kind: 'memory' })).toBe('memory');
    expect(describeStore(resolve({ store: 'rediss://:hunter2@h:6380/2' }).store)).toBe('rediss://:***@h:6380/2');
  });
});

describe('--store-prefix', () => {
  it('is token-sim: by default', () => {
    expect(resolve({}).storePrefix).toBe('token-sim:');
  });

  it.each(['qa:', 'team-a/sim{1}:', 'ä'])('takes %p', (storePrefix) => {
    expect(resolve({ storePrefix }).storePrefix).toBe(storePrefix);
  });

  it.each([
    ['', '--store-prefix must be a non-empty string without spaces or control characters, got ""'],
    ['a b', '--store-prefix must be a non-empty string without spaces or control characters, got "a b"'],
    ['qa:\t', '--store-prefix must be a non-empty string without spaces or control characters, got "qa:\\t"'],
    ['qa\n', '--store-prefix must be a non-empty string without spaces or control characters, got "qa\\n"'],
    ['\u0007qa', '--store-prefix must be a non-empty string without spaces or control characters, got "\\u0007qa"'],
  ])('refuses %p with one line', (storePrefix, message) => {
    expect(refusal({ storePrefix })).toBe(message);
    expect(message).not.toContain('\n');
  });
});

/** When the Redis store's suites skip (test/support/redis.ts): only without redis-server, never under CI=true. */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { redisServerMissing, redisSkipLine } from '../support/redis.js';

describe('redisSkipLine(file, reason, CI)', () => {
  it('skips without redis-server outside CI, with one line naming the suite and the reason', () => {
    expect(redisSkipLine('test/redis/harness.redis.test.ts', 'redis-server not found on PATH', undefined)).toBe(
      'SKIPPED the Redis store tests (test/redis/harness.redis.test.ts): redis-server not found on PATH; ' +
        'install it (apt-get install redis-server) or set REDIS_SERVER. CI (CI=true) never skips them.',
    );
    expect(redisSkipLine('a.redis.test.ts', 'no', 'false')).toMatch(/^SKIPPED the Redis store tests \(a\.redis\.test\.ts\): no;/);
    expect(redisSkipLine('a.redis.test.ts', 'no', '')).toMatch(/^SKIPPED /);
  });

  it('never skips under CI=true, nor when redis-server is there', () => {
    expect(redisSkipLine('a.redis.test.ts', 'redis-server not found on PATH', 'true')).toBeUndefined();
    expect(redisSkipLine('a.redis.test.ts', undefined, undefined)).toBeUndefined();
    expect(redisSkipLine('a.redis.test.ts', undefined, 'true')).toBeUndefined();
  });
});

describe('redisServerMissing(command)', () => {
  it('says so when the executable is not there, by path or on PATH', () => {
    expect(redisServerMissing('/nonexistent/redis-server')).toBe('redis-server not found at /nonexistent/redis-server');
    expect(redisServerMissing('no-such-redis-server-here')).toBe('no-such-redis-server-here not found on PATH');
  });

  it('says so when `--version` fails or is not a redis-server', () => {
    expect(redisServerMissing('false')).toMatch(/^false --version failed \(/);
    expect(redisServerMissing('true')).toMatch(/^true --version did not say "Redis server v=…"/);
  });

  // Only where redis-server is installed (CI installs it): elsewhere there is nothing to find.
  const installed = spawnSync('redis-server', ['--version']).status === 0;
  (installed ? it : it.skip)('finds nothing missing when redis-server runs', () => {
    expect(redisServerMissing('redis-server')).toBeUndefined();
  });
});

import { spawnSync } from 'node:child_process';
import process from 'node:process';

/**
 * `npm test` is the quick loop: the projects "unit" and "http" (no real process, browser, Redis or
 * wall-clock wait; one store). `npm run test:all` runs every project below; `.ci/run` runs it.
 *
 * Six projects:
 * - unit: rules, wire, config, control, CLI in-process, everything that needs no HTTP adapter;
 * - http: the one table of HTTP tests, through the simulator's one listener, on the memory store;
 * - slow: tests that wait on real time or real processes (`*.slow.test.ts`, `*.process.test.ts`), and the
 *   dashboard's tests in a real headless Chromium (`*.browser.test.ts`, test/support/browser.ts);
 * - redis: the Redis store's tests against a real redis-server (`*.redis.test.ts`, test/support/redis.ts);
 *   each file starts its own server in beforeAll. No other project runs them.
 * @type {import('jest').Config}
 */
export const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  rootDir: import.meta.dirname,
  roots: ['<rootDir>/test'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // A shared 2-core CI machine can be loaded several deep: a test that takes 1 s alone may take 10 s there.
  // Timing targets are checked by the benchmark and by the tests that measure them, not by this limit.
  testTimeout: 30_000,
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
};

const HTTP = ['<rootDir>/test/http/**/*.test.ts', '<rootDir>/test/scenarios/**/*.test.ts', '<rootDir>/test/security/**/*.test.ts'];
const SLOW = ['\\.slow\\.test\\.ts$', '\\.process\\.test\\.ts$', '\\.browser\\.test\\.ts$'];
// Only the redis project runs these (they need a redis-server): every other project ignores them.
const REDIS = '\\.redis\\.test\\.ts$';

/**
 * The HTTP suite once more, on the node:http lane with the Redis store (test/support/sim.ts reads
 * TOKEN_SIM_TEST_STORE). Not in the default list until the store exists: add it to `projects` below then.
 */
export const httpRedisProject = {
  ...common,
  displayName: 'http (redis)',
  testMatch: HTTP,
  testPathIgnorePatterns: [...SLOW, REDIS],
  setupFiles: ['<rootDir>/test/support/adapter-redis.cjs'],
  setupFilesAfterEnv: ['<rootDir>/test/support/redis-sims.ts'],
  globalSetup: '<rootDir>/test/support/redis-global.mjs',
  globalTeardown: '<rootDir>/test/support/redis-global-teardown.mjs',
};

/** Whether redis-server runs here; without it (outside CI) the Redis projects are left out, saying so. */
function redisServerRuns() {
  const run = spawnSync(process.env.REDIS_SERVER || 'redis-server', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return run.status === 0 && run.stdout.startsWith('Redis server v=');
}
const withRedis = process.env.CI === 'true' || redisServerRuns();
// `npm test` (the quick loop) selects its projects and never runs this one: no need to say it is skipped.
const quick = process.argv.includes('--selectProjects');
if (!withRedis && !quick) {
  process.stderr.write(
    'SKIPPED the HTTP suite on the Redis store (project "http (redis)"): redis-server not found; install it (apt-get install redis-server) or set REDIS_SERVER. CI (CI=true) never skips it.\n',
  );
}

export default {
  // One worker per core. Jest's default (cores − 1) ran the whole suite in one worker on a 2-core machine,
  // leaving a core idle while tests wait on processes, sockets and timers: test:all took 331 s with one
  // worker, 192 s with two (docs/benchmarks.md, issue 24).
  maxWorkers: '100%',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  // Jest reads testTimeout from the top level only: in a project it is ignored and 5 s applies.
  testTimeout: common.testTimeout,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.test.ts'], testPathIgnorePatterns: ['/test/(http|scenarios|security)/', ...SLOW, REDIS] },
    { ...common, displayName: 'http', testMatch: HTTP, testPathIgnorePatterns: [...SLOW, REDIS] },
    { ...common, displayName: 'slow', testMatch: ['<rootDir>/test/**/*.slow.test.ts', '<rootDir>/test/**/*.process.test.ts', '<rootDir>/test/**/*.browser.test.ts'], slowTestThreshold: 30 },
    { ...common, displayName: 'redis', testMatch: ['<rootDir>/test/**/*.redis.test.ts'] },
    ...(withRedis ? [httpRedisProject] : []),
  ],
};

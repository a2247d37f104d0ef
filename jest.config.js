/**
 * Four projects:
 * - unit: rules, wire, config, control, CLI in-process, everything that needs no HTTP adapter;
 * - http (lane) and http (express): the one table of HTTP tests, run once against each adapter;
 * - slow: tests that wait on real time or real processes (`*.slow.test.ts`, `*.process.test.ts`), and the
 *   dashboard's tests in a real headless Chromium (`*.browser.test.ts`, test/support/browser.ts).
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

export default {
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  // Jest reads testTimeout from the top level only: in a project it is ignored and 5 s applies.
  testTimeout: common.testTimeout,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/**/*.test.ts'], testPathIgnorePatterns: ['/test/(http|scenarios|security)/', ...SLOW] },
    { ...common, displayName: 'http (lane)', testMatch: HTTP, testPathIgnorePatterns: SLOW, setupFiles: ['<rootDir>/test/support/adapter-lane.cjs'] },
    { ...common, displayName: 'http (express)', testMatch: HTTP, testPathIgnorePatterns: SLOW, setupFiles: ['<rootDir>/test/support/adapter-express.cjs'] },
    { ...common, displayName: 'slow', testMatch: ['<rootDir>/test/**/*.slow.test.ts', '<rootDir>/test/**/*.process.test.ts', '<rootDir>/test/**/*.browser.test.ts'], slowTestThreshold: 30 },
  ],
};

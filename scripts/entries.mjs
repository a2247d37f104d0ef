// The package's entry points, for scripts/build-cjs.mjs and scripts/build-types.mjs: `name` is the published
// file (dist/<name>.d.ts, dist/cjs/<name>.js and .d.ts), `source` the module tsc writes to dist/<source>.js.
// The test-runner helpers live in src/runners/ (one folder above index.ts, decision 0067).
export const ENTRIES = [
  { name: 'index', source: 'index' },
  { name: 'jest', source: 'runners/jest' },
  { name: 'jest-global-setup', source: 'runners/jest-global-setup' },
  { name: 'jest-global-teardown', source: 'runners/jest-global-teardown' },
  { name: 'vitest', source: 'runners/vitest' },
];

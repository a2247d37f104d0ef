// @ts-check
/**
 * Mutation testing of the domain and wire layers (see docs/mutation.md):
 * - `npm run mutation`: every mutant (the full run);
 * - `npm run mutation:ci` (`stryker run --incremental`, what CI runs): only the mutants of code and tests that
 *   changed since the results kept in `incrementalFile`, the others' results reused; it rewrites that file.
 *   `npm run mutation:ci -- --force` runs every mutant and rewrites the file: the full run to commit.
 * Either fails (exit code 1) below a score of `thresholds.break`.
 * Jest runs the fast in-process tests of jest.mutation.config.js in ESM mode; one worker, so that the
 * run leaves a core free on a 2-core machine.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  coverageAnalysis: 'perTest',
  checkers: [],
  mutate: ['src/domain/**/*.ts', 'src/wire/**/*.ts'],
  concurrency: 1,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 98, low: 95, break: 95 },
  // Committed (outside the git-ignored reports/): the results incremental runs start from. Read and written only
  // with --incremental.
  incrementalFile: '.stryker/incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

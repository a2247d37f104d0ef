// @ts-check
/**
 * Mutation testing of the domain and wire layers: `npm run mutation` (see docs/mutation.md).
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
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

import { common } from './jest.config.js';

/**
 * The jest config StrykerJS runs (`npm run mutation`, see stryker.config.mjs and docs/mutation.md): only the
 * fast, in-process tests of src/domain and src/wire (test/domain, test/wire). No HTTP servers, no slow or
 * process tests. Other unit tests (config, infra, control, scenarios) kill no mutant these do not, and each
 * file they add costs every static mutant a few hundred milliseconds. So a module of src/domain or src/wire that
 * only the HTTP tests reach has no coverage here: give it its own test in test/domain or test/wire (as
 * test/wire/payment-schemas.test.ts and test/domain/payment-events.test.ts do).
 * @type {import('jest').Config}
 */
export default {
  ...common,
  displayName: 'mutation',
  transform: {
    // Stryker marks mutated files `// @ts-nocheck`; type errors are tsc's job, not the mutation run's.
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/domain/**/*.test.ts', '<rootDir>/test/wire/**/*.test.ts'],
  testPathIgnorePatterns: ['\\.slow\\.test\\.ts$', '\\.process\\.test\\.ts$'],
};

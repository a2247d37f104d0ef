// ESLint flat config: type-aware typescript-eslint rules; one import zone per layer of src/ (eslint.layers.js),
// src/domain reads no clock and no randomness of its own, and no function of src/ is over 80 lines nor a file
// over 300 (eslint.size.js).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerZones } from './eslint.layers.js';
import { sizeRules } from './eslint.size.js';

export default tseslint.config(
  // .ci/pack-projects: fresh projects that .ci/pack-check installs the packed package into and checks there.
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'test/lint/fixtures/', 'reports/', '.stryker-tmp/', '.ci/pack-projects/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'eslint.layers.js', 'bin/*.js', 'bench/*.mjs', 'test/support/*.cjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layerZones(),
  ...sizeRules(),
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read time from deps.clock' },
        { object: 'Math', property: 'random', message: 'Draw randomness from deps.ids' },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['bench/*.mjs', 'scripts/*.mjs'],
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', fetch: 'readonly', performance: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    files: ['test/support/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', process: 'readonly' } },
  },
  {
    files: ['bin/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);

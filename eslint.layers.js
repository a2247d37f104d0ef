// The layers of src/, lowest first. A file may import from its own layer and the layers below it, never
// from a layer above: one no-restricted-imports zone per folder (docs/architecture.md draws them).
import tseslint from 'typescript-eslint';
export const LAYERS = [
  { folder: 'domain', packages: ['node:*', 'express', 'express-*', 'zod', 'nanoid', 'commander', 'pino', 'yaml'] },
  { folder: 'infra', packages: ['express', 'express-*', 'zod', 'commander', 'pino', 'yaml', 'node:http', 'node:net'] },
  { folder: 'wire', packages: ['node:*', 'express', 'express-*', 'commander', 'pino'] },
  { folder: 'config', packages: ['express', 'express-*', 'commander', 'pino', 'node:http', 'node:net'] },
  { folder: 'scenarios', packages: ['express', 'express-*', 'commander', 'pino', 'node:http', 'node:net'] },
  { folder: 'control', packages: ['express', 'express-*', 'commander', 'pino', 'node:http', 'node:net'] },
  { folder: 'store', packages: ['express', 'express-*', 'commander', 'pino', 'node:http', 'node:net'] },
  { folder: 'verify', packages: ['commander', 'express', 'express-*'] },
  { folder: 'http', packages: ['commander'] },
  { folder: 'simulator', packages: ['commander'] },
  { folder: 'cli', packages: [] },
];

/** The entry points (src/index.ts, the test-runner helpers of src/runners/) sit above every folder (decisions 0019, 0067). */
const ENTRY = ['**/index.js', '../index.js', '**/runners/*'];

/** src/ui: the dashboard's browser code, bundled on its own (scripts/build-ui.mjs); outside the layers both ways. */
const UI = ['**/ui/*', '**/ui/**'];
const UI_ZONE = {
  files: ['src/ui/**/*.ts'],
  plugins: { '@typescript-eslint': tseslint.plugin },
  rules: {
    // typescript-eslint's rule, which can let type imports through: the dashboard reads the shapes /_sim answers
    // from the published declarations (dist/index.d.ts), as any client of the package does; no code.
    'no-restricted-imports': 'off',
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['../*', '../**', '!../../dist/index.js'], message: 'src/ui runs in the browser: it talks to the simulator through /_sim only, never imports server code (decision 0035)' },
          { group: ['../../dist/index.js'], allowTypeImports: true, message: 'src/ui takes only types from the published declarations (decision 0035): no server code in the browser' },
          { group: ['node:*', 'express', 'express-*', 'zod', 'commander', 'pino', 'yaml', 'prom-client'], message: 'src/ui runs in the browser: Preact and htm only (decision 0035)' },
        ],
      },
    ],
  },
};

export function layerZones() {
  return [...LAYERS.map(({ folder, packages }, i) => {
    const above = LAYERS.slice(i + 1).map((l) => l.folder);
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...(above.length > 0
                ? [{ group: above.flatMap((f) => [`**/${f}/*`, `**/${f}/**`]), message: `src/${folder} is below ${above.join(', ')}: imports point down only (docs/architecture.md)` }]
                : []),
              { group: ENTRY, message: 'src/index.ts and src/runners/ are the entry points: nothing inside the layers imports them' },
              { group: UI, message: 'src/ui is the dashboard, browser code: the server serves its built files (dist/ui), never imports it (decision 0035)' },
              ...(packages.length > 0 ? [{ group: packages, message: `src/${folder} does not use ${packages.join(', ')} (docs/architecture.md)` }] : []),
            ],
          },
        ],
      },
    };
  }), UI_ZONE];
}

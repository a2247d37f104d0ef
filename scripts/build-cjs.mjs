// The CommonJS half of the package (decision 0019), built after `tsc -p tsconfig.build.json` has written the
// ES modules and declarations to dist/:
// - each entry point (index, jest, jest-global-setup, jest-global-teardown, vitest) is bundled by esbuild from
//   dist/<entry>.js into dist/cjs/<entry>.js; packages stay `require`s, and one entry's import of another
//   stays a `require` of it, so that index.js holds the only copy of the simulator;
// - `import.meta.url` becomes the bundle's own file URL: dist/cjs/index.js sits two levels below the package
//   root as dist/config/fixtures.js does, so '../../fixtures/…' and '../../package.json' resolve alike;
// - dist/cjs/package.json says "commonjs"; scripts/build-types.mjs then writes the entry points' declarations
//   next to the bundles.
import { build } from 'esbuild';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `node scripts/build-cjs.mjs [dist]`: another output directory (tsc's --outDir) for trial builds.
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const out = join(dist, 'cjs');
const ENTRIES = ['index', 'jest', 'jest-global-setup', 'jest-global-teardown', 'vitest'];

for (const entry of ENTRIES) {
  if (!existsSync(join(dist, `${entry}.js`))) throw new Error(`dist/${entry}.js is missing: run tsc -p tsconfig.build.json first`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** An import of another entry point (`./index.js` from jest.js) stays a require of its CommonJS bundle. */
const entriesStayExternal = {
  name: 'entries-stay-external',
  setup(b) {
    const names = new Set(ENTRIES.map((e) => `./${e}.js`));
    b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
      args.kind !== 'entry-point' && dirname(args.importer) === dist && names.has(args.path) ? { path: args.path, external: true } : undefined,
    );
  },
};

await build({
  absWorkingDir: root,
  entryPoints: ENTRIES.map((e) => join(dist, `${e}.js`)),
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  define: { 'import.meta.url': '__tokenSimModuleUrl' },
  banner: { js: 'const __tokenSimModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [entriesStayExternal],
  logLevel: 'warning',
});

writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

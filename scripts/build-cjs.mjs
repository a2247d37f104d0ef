// The CommonJS half of the package (decision 0019), built after `tsc -p tsconfig.build.json` has written the
// ES modules and declarations to dist/:
// - each entry point of scripts/entries.mjs is bundled by esbuild from dist/<source>.js into dist/cjs/<name>.js;
//   packages stay `require`s, and one entry's import of another stays a `require` of its bundle, so that
//   index.js holds the only copy of the simulator;
// - `import.meta.url` becomes the bundle's own file URL: dist/cjs/index.js sits two levels below the package
//   root as dist/config/fixtures.js does, so '../../fixtures/…' and '../../package.json' resolve alike;
// - dist/cjs/package.json says "commonjs"; scripts/build-types.mjs then writes the entry points' declarations
//   next to the bundles.
import { build } from 'esbuild';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTRIES } from './entries.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `node scripts/build-cjs.mjs [dist]`: another output directory (tsc's --outDir) for trial builds.
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const out = join(dist, 'cjs');

for (const { source } of ENTRIES) {
  if (!existsSync(join(dist, `${source}.js`))) throw new Error(`dist/${source}.js is missing: run tsc -p tsconfig.build.json first`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** An import of another entry point (`../index.js` from runners/jest.js) stays a require of its CommonJS bundle. */
const entriesStayExternal = {
  name: 'entries-stay-external',
  setup(b) {
    const names = new Map(ENTRIES.map(({ name, source }) => [join(dist, `${source}.js`), `./${name}.js`]));
    b.onResolve({ filter: /^\.\.?\/[\w/-]+\.js$/ }, (args) => {
      const bundle = args.kind === 'entry-point' ? undefined : names.get(resolve(dirname(args.importer), args.path));
      return bundle === undefined ? undefined : { path: bundle, external: true };
    });
  },
};

await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(ENTRIES.map(({ name, source }) => [name, join(dist, `${source}.js`)])),
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

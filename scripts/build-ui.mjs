// The dashboard (`GET /_sim/ui`, decision 0035): src/ui/main.ts with Preact and htm bundled by esbuild into one
// minified script, the stylesheet and the page copied beside it, and the shipped scenarios (scenarios/*.yaml)
// bundled into the script as texts, so that the page loads one of them with one click and needs no route of
// its own. Written to dist/ui/ (or `node scripts/build-ui.mjs <dir>` for trial builds); each file is written
// to a temporary name and renamed, so that a server reading the directory never sees half a file.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'dist', 'ui'));
const src = join(root, 'src', 'ui');

const scenarios = readdirSync(join(root, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => ({ file, text: readFileSync(join(root, 'scenarios', file), 'utf8') }));
// The journal's operations, declared once (control/journal-entry.ts): read from the library tsc built first.
const { OPERATIONS } = await import(pathToFileURL(join(root, 'dist', 'control', 'journal-entry.js')).href);

const result = await build({
  entryPoints: [join(src, 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  platform: 'browser',
  write: false,
  legalComments: 'none',
  jsx: 'preserve',
  define: { __SHIPPED_SCENARIOS__: JSON.stringify(scenarios), __JOURNAL_OPERATIONS__: JSON.stringify(OPERATIONS), 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

mkdirSync(out, { recursive: true });
const put = (name, content) => {
  const tmp = join(out, `.${name}.${process.pid}.tmp`);
  writeFileSync(tmp, content);
  renameSync(tmp, join(out, name));
};
put('app.js', result.outputFiles[0].contents);
put('app.css', readFileSync(join(src, 'app.css')));
put('index.html', readFileSync(join(src, 'index.html')));

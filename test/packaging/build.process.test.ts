/**
 * The build as `npm run build` makes it (tsc, then scripts/build-cjs.mjs, build-types.mjs and build-ui.mjs), into a package directory of its own:
 * the CommonJS entry points work from `require`, find the package's files, and share one copy of the simulator;
 * the declarations compile for a project without @types/node; package.json's exports name files that exist.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const run = promisify(execFile);
const repo = new URL('../../', import.meta.url).pathname;
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const buildCjs = join(repo, 'scripts/build-cjs.mjs');
const buildTypes = join(repo, 'scripts/build-types.mjs');
const buildUi = join(repo, 'scripts/build-ui.mjs');

let work: string;
/** The package as npm would install it: package.json, fixtures, scenarios and the build. */
let pkg: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'token-sim-build-'));
  pkg = join(work, 'node_modules', 'token-sim');
  mkdirSync(pkg, { recursive: true });
  for (const item of ['package.json', 'fixtures', 'scenarios']) cpSync(join(repo, item), join(pkg, item), { recursive: true });
  await run(process.execPath, [tsc, '-p', join(repo, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')]);
  await run(process.execPath, [buildCjs, join(pkg, 'dist')]);
  await run(process.execPath, [buildTypes, join(pkg, 'dist')]);
  await run(process.execPath, [buildUi, join(pkg, 'dist', 'ui')]);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a CommonJS script in the package directory; resolves with its stdout. */
async function commonJs(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['-e', script], { cwd: pkg, env: { ...process.env, NODE_PATH: join(repo, 'node_modules') } });
  return stdout.trim();
}

describe('the dashboard in the built package (decision 0035)', () => {
  it.each([
    ['require', `const { startSimulator } = require('./dist/cjs/index.js');`, ['-e']],
    ['import', `const { startSimulator } = await import('./dist/index.js');`, ['--input-type=module', '-e']],
  ])('serves /_sim/ui and its script from dist/ui when loaded by %s', async (_how, load, flags) => {
    // ES modules ignore NODE_PATH: the package's dependencies, installed beside it as npm would.
    for (const dep of Object.keys((JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies)) {
      if (!existsSync(join(work, 'node_modules', dep))) symlinkSync(join(repo, 'node_modules', dep), join(work, 'node_modules', dep));
    }
    const script = `${load}
      (async () => {
        const sim = await startSimulator({ port: 0, log: 'silent', adminToken: 'pkg' });
        const page = await fetch(sim.url + '/_sim/ui');
        const js = await fetch(sim.url + '/_sim/ui/app.js');
        const root = await fetch(sim.url + '/', { headers: { Accept: 'text/html' }, redirect: 'manual' });
        console.log(JSON.stringify({ page: [page.status, page.headers.get('content-type'), (await page.text()).includes('/_sim/ui/app.js')],
          js: [js.status, js.headers.get('content-type'), (await js.text()).length], root: [root.status, root.headers.get('location')] }));
        await sim.close();
      })().catch((err) => { console.error(err); process.exit(1); });`;
    const { stdout } = await run(process.execPath, [...flags, script], { cwd: pkg, env: { ...process.env, NODE_PATH: join(repo, 'node_modules') } });
    expect(JSON.parse(stdout.trim())).toEqual({
      page: [200, 'text/html; charset=utf-8', true],
      js: [200, 'text/javascript; charset=utf-8', readFileSync(join(pkg, 'dist/ui/app.js'), 'utf8').length],
      root: [303, '/_sim/ui'],
    });
  });
});

describe('the CommonJS build', () => {
  it('says commonjs for dist/cjs, and bundles each entry point there', () => {
    expect(JSON.parse(readFileSync(join(pkg, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const entry of ['index', 'jest', 'jest-global-setup', 'jest-global-teardown', 'vitest']) {
      expect(existsSync(join(pkg, `dist/cjs/${entry}.js`))).toBe(true);
      expect(existsSync(join(pkg, `dist/cjs/${entry}.d.ts`))).toBe(true);
    }
  });

  it('starts a simulator from require, with the default fixtures, a YAML scenario and the package version', async () => {
    const out = await commonJs(`
      const { startSimulator } = require('./dist/cjs/index.js');
      (async () => {
        const sim = await startSimulator({ port: 0, scenarios: ['scenarios/outage.yaml'] });
        const doc = await (await fetch(sim.url + '/_sim/openapi.json')).json();
        console.log(JSON.stringify({ scenarios: sim.scenarios().map((s) => s.name), version: doc.info.version, users: sim.exportState().format }));
        await sim.close();
      })().catch((err) => { console.error(err); process.exit(1); });
    `);
    const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;
    expect(JSON.parse(out)).toEqual({ scenarios: ['outage'], version, users: 'token-sim-state' });
  });

  it('keeps prom-client a require of the installed package, and serves /_sim/metrics from require', async () => {
    const bundle = readFileSync(join(pkg, 'dist/cjs/index.js'), 'utf8');
    expect(bundle).toContain('require("prom-client")');
    expect(bundle).not.toContain('collectDefaultMetrics');
    const out = await commonJs(`
      const { startSimulator } = require('./dist/cjs/index.js');
      (async () => {
        const sim = await startSimulator({ port: 0, log: 'silent' });
        const res = await fetch(sim.url + '/_sim/metrics');
        const text = await res.text();
        const loaded = Object.keys(require.cache).filter((f) => f.includes('/prom-client/')).length > 0;
        console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), tokens: /^token_sim_tokens 0$/m.test(text), loaded }));
        await sim.close();
      })().catch((err) => { console.error(err); process.exit(1); });
    `);
    expect(JSON.parse(out)).toEqual({ status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', tokens: true, loaded: true });
  });

  it('keeps one copy of the simulator: the helpers require index.js rather than bundling it', async () => {
    const out = await commonJs(`
      require('./dist/cjs/jest-global-setup.js');
      require('./dist/cjs/vitest.js');
      const own = process.cwd() + '/';
      console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(own)).map((f) => f.slice(own.length)).sort()));
    `);
    // The set-up file takes the shared run (test-runner.ts) straight, not through jest.js: index.js is the one copy either way.
    expect(JSON.parse(out)).toEqual(['dist/cjs/index.js', 'dist/cjs/jest-global-setup.js', 'dist/cjs/vitest.js']);
    for (const helper of ['jest', 'jest-global-setup', 'jest-global-teardown', 'vitest']) {
      expect([helper, readFileSync(join(pkg, `dist/cjs/${helper}.js`), 'utf8').length < 10_000]).toEqual([helper, true]);
    }
  });
});

describe('package.json', () => {
  it('names in main, types, typesVersions and exports only files the build makes', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
      main: string;
      types: string;
      typesVersions: Record<string, Record<string, string[]>>;
      exports: Record<string, string | Record<string, Record<string, string>>>;
    };
    const targets = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.typesVersions['*'] ?? {}).flat(),
      ...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e).flatMap((c) => Object.values(c)))),
    ];
    expect(targets.length).toBeGreaterThan(20);
    expect(targets.filter((t) => !existsSync(join(pkg, t)))).toEqual([]);
    expect(Object.keys(manifest.exports)).toEqual(['.', './jest', './jest/global-setup', './jest/global-teardown', './vitest', './package.json']);
  });
});

describe('the declarations', () => {
  it('compile with strict and skipLibCheck false in a project without @types, as ESM and as CommonJS', async () => {
    const project = join(work, 'consumer');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(project, 'esm.ts'),
      [
        "import { createSimulator, type Scenario, type StateSnapshot, type JournalEntry } from 'token-sim';",
        "import { globalSetup } from 'token-sim/jest';",
        "import { setup } from 'token-sim/vitest';",
        "const outage: Scenario = { name: 'outage', rules: [{ when: { operation: 'createToken' }, then: { error: { status: 503, errorName: 'down' } } }] };",
        'const sim = createSimulator({ scenarios: [outage] });',
        'export const state: StateSnapshot = sim.exportState();',
        'export const journal: JournalEntry[] = sim.tenant("merchant").requests({ operation: "createToken" });',
        'export const helpers = [globalSetup({ workers: 2 }), setup];',
        '// @ts-expect-error the vault is not public',
        'export const vault: unknown = sim.vault;',
      ].join('\n'),
    );
    writeFileSync(join(project, 'cjs.cts'), "import tokenSim = require('token-sim');\nexport const start = tokenSim.startSimulator;\n");
    // No @types anywhere above the project (it lives in the system's temporary directory), no DOM lib.
    const compile = (module: string, file: string): Promise<string> =>
      run(process.execPath, [tsc, '--strict', '--skipLibCheck', 'false', '--noEmit', '--target', 'es2022', '--lib', 'es2022', '--module', module, file], { cwd: project }).then(
        () => '',
        (err: { stdout: string }) => err.stdout,
      );
    expect(await compile('nodenext', 'esm.ts')).toBe('');
    expect(await compile('node16', 'cjs.cts')).toBe('');
  }, 60_000);

  it('are refused by the build when one imports a package', async () => {
    const dist = join(work, 'bad-dist');
    mkdirSync(join(dist, 'cjs'), { recursive: true });
    mkdirSync(join(dist, 'runners'), { recursive: true });
    // As tsc writes them: the test-runner helpers' modules under runners/.
    for (const entry of ['index', 'runners/jest', 'runners/jest-global-setup', 'runners/jest-global-teardown', 'runners/vitest']) {
      writeFileSync(join(dist, `${entry}.d.ts`), entry === 'index' ? "import type { Express } from 'express';\nexport type App = Express;\n" : 'export {};\n');
    }
    const failure = await run(process.execPath, [buildTypes, dist]).then(
      () => '',
      (err: { stderr: string }) => err.stderr,
    );
    expect(failure).toContain('index.d.ts imports express');
    expect(existsSync(join(dist, 'cjs', 'index.d.ts'))).toBe(false);
  });
});

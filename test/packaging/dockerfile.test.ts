/**
 * The root Dockerfile and its .dockerignore (contract 4.3, decision 0054), read as text. `npm run test:image`
 * builds and runs the image (it needs podman); these hold on any machine: the CLI reads every variable the image
 * sets, the image ships what the package ships for running, and the build context lets in what the build needs.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEnvironment } from '../../src/cli/option-sources.js';
import { ROOT, readDockerfile } from '../support/dockerfile.js';

const dockerfile = readDockerfile();
const { instructions, runtime, env, one } = dockerfile;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
/** The image's non-root user and group. */
const USER = '10001:10001';
/** How long `docker stop` and `podman stop` wait after SIGTERM before they SIGKILL. */
const STOP_GRACE_SECONDS = 10;

const copies = (stage: number, from: 'context' | 'build'): string[] =>
  instructions
    .filter((i) => i.stage === stage && i.keyword === 'COPY' && i.args.startsWith('--from=') === (from === 'build'))
    .map((i) => i.args.replace(/^--from=\S+ /, '').split(' ').slice(0, -1))
    .flat();
const lastStage = runtime[0]!.stage;

describe('the root Dockerfile', () => {
  it('takes its base as the BASE_IMAGE argument, node:20-slim by default, for both stages', () => {
    expect(instructions.filter((i) => i.stage === -1).map((i) => `${i.keyword} ${i.args}`)).toEqual(['ARG BASE_IMAGE=node:20-slim']);
    expect(instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args)).toEqual(['${BASE_IMAGE} AS build', '${BASE_IMAGE}']);
  });

  it('is configured by TOKEN_SIM_* variables the CLI reads: 0.0.0.0:8080, the state file in the volume /data', () => {
    const variables = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('TOKEN_SIM_')));
    expect(readEnvironment(variables)).toStrictEqual({
      values: { host: '0.0.0.0', port: 8080, stateFile: '/data/state.json', drainTimeout: 'PT8S' },
      problems: [],
      warnings: [],
    });
    expect(one('VOLUME')).toBe('/data');
    expect(one('EXPOSE')).toBe(env.TOKEN_SIM_PORT);
  });

  it('stops on SIGTERM, draining for less than the time a container engine waits before SIGKILL', () => {
    expect(one('STOPSIGNAL')).toBe('SIGTERM');
    const drain = Number(/^PT(\d+)S$/.exec(env.TOKEN_SIM_DRAIN_TIMEOUT ?? '')?.[1]);
    expect(drain).toBeLessThan(STOP_GRACE_SECONDS);
  });

  it('runs the CLI itself as PID 1 (exec form, no shell in between), as a non-root user that owns /data', () => {
    expect(JSON.parse(one('ENTRYPOINT') ?? 'null')).toEqual(['node', '/app/bin/token-sim.js']);
    expect(one('USER')).toBe(USER);
    expect(runtime.find((i) => i.keyword === 'RUN')?.args).toContain(`chown ${USER} /data`);
    // The CLI's working directory (where it would write files of its own) is the volume too.
    expect(runtime.filter((i) => i.keyword === 'WORKDIR').map((i) => i.args)).toEqual(['/app', '/data']);
  });

  it('checks /_sim/health with node itself, on the port it listens on', () => {
    const check = one('HEALTHCHECK') ?? '';
    expect(check).toMatch(/ CMD \["node", "-e", ".*"\]$/);
    expect(check).toContain("port: e.TOKEN_SIM_PORT || 8080, path: '/_sim/health'");
  });

  it('ships what the package ships for running (package.json files, without the docs), and no sources or tests', () => {
    const shipped = pkg.files.filter((f) => !f.startsWith('!') && !['docs/', 'README.md', 'CHANGELOG.md'].includes(f));
    const image = [...copies(lastStage, 'context'), ...copies(lastStage, 'build').map((p) => p.replace(/^\/src\//, ''))];
    for (const file of [...shipped, 'package.json', 'node_modules/']) expect(image).toContain(file);
    for (const file of image) expect(['src/', 'test/', 'scripts/', 'docs/']).not.toContain(file);
  });

  it('builds with npm ci from the lock file, runs the build, and keeps only the production dependencies', () => {
    const build = instructions.filter((i) => i.stage === 0 && i.keyword === 'RUN').map((i) => i.args);
    expect(build[0]).toMatch(/^npm ci\b/);
    expect(build[1]).toMatch(/^npm run build && npm prune --omit=dev\b/);
  });
});

describe('.dockerignore', () => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const allowed = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1).replace(/\/$/, ''));
  const regexOf = (glob: string): RegExp => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`);
  const lets = (path: string): boolean => allowed.some((glob) => regexOf(glob).test(path));

  it('leaves everything out but what it names', () => {
    expect(patterns[0]).toBe('*');
    for (const path of ['node_modules', 'dist', '.git', 'test', 'docs', 'bench', 'reports', '.stryker', '.stryker-tmp', 'coverage', 'examples', 'README.md']) {
      expect([path, lets(path)]).toEqual([path, false]);
    }
  });

  it('lets in every file the Dockerfile copies from the context, and the scripts `npm run build` runs', () => {
    const fromContext = [copies(0, 'context'), copies(lastStage, 'context')].flat().filter((p) => !p.endsWith('/'));
    const buildScripts = [...pkg.scripts.build!.matchAll(/scripts\/[\w-]+\.mjs/g)].map((m) => m[0]);
    expect(buildScripts.length).toBeGreaterThanOrEqual(3);
    // And the modules of scripts/ that they import (scripts/entries.mjs was left out once: the image did not build).
    const imported = buildScripts.flatMap((script) => [...readFileSync(join(ROOT, script), 'utf8').matchAll(/from '\.\/([\w-]+\.mjs)'/g)].map((m) => `scripts/${m[1]}`));
    expect(imported).toContain('scripts/entries.mjs');
    for (const path of [...fromContext, ...buildScripts, ...imported, 'src/cli/main.ts', 'bin/token-sim.js', 'fixtures/default.json']) {
      expect([path, lets(path)]).toEqual([path, true]);
    }
    // Every folder copied is let in whole, but scripts/, of which only the build scripts are.
    const folders = [copies(0, 'context'), copies(lastStage, 'context')].flat().filter((p) => p.endsWith('/') && p !== 'scripts/');
    for (const folder of folders) expect([folder, lets(folder.replace(/\/$/, ''))]).toEqual([folder, true]);
  });
});

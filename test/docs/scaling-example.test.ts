/**
 * The docker compose example of docs/scaling.md (examples/scaling/) cannot run here (no Docker Hub for Redis and
 * nginx), so this checks what would make it fail: three token-sim replicas that differ in nothing, built from the
 * root Dockerfile (which `npm run test:image` builds and runs), a Redis that keeps its data, nginx sending to all
 * three with the Host passed on, and only options, values and variables the CLI really takes, the image's own
 * variables included. docs/scaling.md shows the files exactly as they are.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { OPTIONS } from '../../src/cli/option-table.js';
import { checkValue, parseEnvText, readEnvironment } from '../../src/cli/option-sources.js';
import { fixturesProblems } from '../../src/config/fixtures.js';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';
import { readDockerfile } from '../support/dockerfile.js';
import { fencedBlocks } from '../support/markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const example = join(root, 'examples', 'scaling');
const read = (path: string): string => readFileSync(path, 'utf8');
const composeText = read(join(example, 'docker-compose.yml'));
const nginxText = read(join(example, 'nginx.conf'));

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
const compose = parse(composeText) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const replicas = services.filter(([, s]) => s.build !== undefined);
const [, first] = replicas[0] ?? [];
/** The image's ENTRYPOINT is the CLI: the command is its arguments. */
const args = first?.command ?? [];
const image = readDockerfile();

/** `--store-prefix` → `storePrefix`. */
const keyOf = (flag: string): string => flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The command's options as [flag, value] (true for a boolean option). */
function optionsOf(list: readonly string[]): [string, string | true][] {
  const out: [string, string | true][] = [];
  for (let i = 0; i < list.length; i++) {
    const flag = list[i]!;
    if (!flag.startsWith('--')) throw new Error(`expected an option at ${flag}`);
    const spec = OPTIONS.find((o) => o.key === keyOf(flag));
    if (spec?.kind === 'boolean') out.push([flag, true]);
    else out.push([flag, list[++i] ?? '']);
  }
  return out;
}
const options = optionsOf(args);
const valueOf = (flag: string): string | true | undefined => options.find(([f]) => f === flag)?.[1];
/** What the CLI reads in a replica: the image's variables, then the service's (the admin token given a value). */
const replicaEnvironment = (): Record<string, string> => ({
  ...image.env,
  ...Object.fromEntries(Object.entries(first?.environment ?? {}).map(([name, value]) => [name, name === 'TOKEN_SIM_ADMIN_TOKEN' ? 'a-long-enough-admin-token' : value])),
});

/** A path inside the container → the file of examples/scaling/ mounted there. */
function hostPathOf(service: Service, inside: string): string | undefined {
  for (const volume of service.volumes ?? []) {
    const [from, to] = volume.split(':');
    if (to === inside && from?.startsWith('./')) return join(example, from);
  }
  return undefined;
}

describe('the docker compose example (examples/scaling/docker-compose.yml)', () => {
  it('runs three token-sim replicas that differ in nothing', () => {
    expect(replicas.map(([name]) => name)).toEqual(['token-sim-1', 'token-sim-2', 'token-sim-3']);
    for (const [, replica] of replicas) expect(replica).toStrictEqual(first);
  });

  it('builds this checkout from the root Dockerfile, whose entry point is the CLI, on its default base', () => {
    expect(resolve(example, first?.build?.context ?? '')).toBe(resolve(root));
    expect(first?.build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(first?.image).toBeUndefined();
    expect(`BASE_IMAGE=${first?.build?.args?.BASE_IMAGE}`).toBe(image.instructions.find((i) => i.keyword === 'ARG')?.args);
    expect(JSON.parse(image.one('ENTRYPOINT') ?? 'null')).toEqual(['node', '/app/bin/token-sim.js']);
  });

  it('gives every replica the same seed, fixtures, Redis store and key prefix, listening on every interface', () => {
    expect(valueOf('--seed')).toEqual(expect.any(String));
    expect(valueOf('--store')).toBe('redis://redis:6379/0');
    expect(valueOf('--store-prefix')).toBe('token-sim:');
    expect(valueOf('--fixtures')).toBe('/etc/token-sim/fixtures.json');
    // The image listens on every interface; the command does not change that.
    expect(valueOf('--host')).toBeUndefined();
    expect(readEnvironment(replicaEnvironment()).values.host).toBe('0.0.0.0');
    // No --state-file: it is refused with a Redis store.
    expect(valueOf('--state-file')).toBeUndefined();
  });

  it('uses only options that `token-sim --help` lists', async () => {
    const help = runCli(['--help']);
    expect(await exitCodeOf(help)).toBe(0);
    const listed = new Set([...help.stdout().matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
    expect(options.length).toBeGreaterThanOrEqual(5);
    for (const [flag] of options) expect([flag, listed.has(flag)]).toEqual([flag, true]);
  });

  it.each(options.map(([flag, value]) => [flag, value] as const))('gives %s a value the CLI accepts (%s)', (flag, value) => {
    const spec = OPTIONS.find((o) => o.key === keyOf(flag));
    expect(spec).toBeDefined();
    if (value === true) return;
    const parsed = parseEnvText(spec!.kind, value);
    expect(parsed).toHaveProperty('value');
    const local = spec!.kind === 'file' ? hostPathOf(first!, value) : undefined;
    if (spec!.kind === 'file') expect(local).toBeDefined();
    expect(checkValue(spec!, local ?? (parsed as { value: string | number }).value)).toBeUndefined();
  });

  it("takes the admin token from an environment variable the CLI reads, and unsets the image's state file", () => {
    expect(Object.keys(first?.environment ?? {})).toEqual(['TOKEN_SIM_ADMIN_TOKEN', 'TOKEN_SIM_STATE_FILE']);
    expect(image.env.TOKEN_SIM_STATE_FILE).toBe('/data/state.json');
    const read = readEnvironment(replicaEnvironment());
    expect(read.problems).toStrictEqual([]);
    expect(read.warnings).toStrictEqual([]);
    expect(read.values.adminToken).toBe('a-long-enough-admin-token');
    // --state-file is refused with a Redis store: the empty value leaves it unset.
    expect(read.values).not.toHaveProperty('stateFile');
    // Compose refuses to start without it rather than run an open control API.
    expect(first?.environment?.TOKEN_SIM_ADMIN_TOKEN).toMatch(/^\$\{TOKEN_SIM_ADMIN_TOKEN:\?/);
  });

  it('mounts a fixtures file that validates', () => {
    const local = hostPathOf(first!, '/etc/token-sim/fixtures.json');
    expect(local).toBe(join(example, 'fixtures.json'));
    expect(fixturesProblems(JSON.parse(read(local!)))).toStrictEqual([]);
  });

  it("checks each replica through the image's HEALTHCHECK on /_sim/health, on the port it listens on", () => {
    expect(first?.healthcheck).toBeUndefined();
    expect(image.one('HEALTHCHECK')).toContain('/_sim/health');
    expect(valueOf('--port')).toBeUndefined();
    expect(readEnvironment(replicaEnvironment()).values.port).toBe(8080);
  });

  it('runs Redis 7 with appendonly, its data on a volume, and starts the replicas once it answers', () => {
    const redis = compose.services.redis;
    expect(redis?.image).toMatch(/^redis:7\b/);
    expect(redis?.command?.join(' ')).toMatch(/^redis-server .*--appendonly yes\b/);
    expect(redis?.volumes).toContainEqual(expect.stringMatching(/^[a-z-]+:\/data$/));
    expect(first?.depends_on?.redis).toEqual({ condition: 'service_healthy' });
  });

  it('publishes nginx, with this nginx.conf, in front of every replica', () => {
    const nginx = compose.services.nginx;
    expect(nginx?.image).toMatch(/^nginx:/);
    expect(nginx?.ports).toEqual(['8080:80']);
    expect(nginx?.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(Object.keys(nginx?.depends_on ?? {}).sort()).toEqual(replicas.map(([name]) => name).sort());
  });
});

describe('the nginx.conf of the example', () => {
  const upstream = /upstream\s+(\w+)\s*\{([^}]*)\}/.exec(nginxText);
  const directives = (text: string, name: string): string[] =>
    [...text.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());

  it('lists every replica, on the port it listens on, in its upstream', () => {
    expect(upstream).not.toBeNull();
    expect(directives(upstream![2]!, 'server')).toEqual(replicas.map(([name]) => `${name}:${String(readEnvironment(replicaEnvironment()).values.port)}`));
  });

  it('keeps connections to the replicas open (HTTP/1.1, no Connection: close), closing them before token-sim does', () => {
    expect(directives(upstream![2]!, 'keepalive')).toHaveLength(1);
    const idle = directives(upstream![2]!, 'keepalive_timeout')[0];
    expect(Number(/^(\d+)s$/.exec(idle ?? '')?.[1])).toBeLessThan(5); // token-sim closes idle connections after 5 s
    expect(directives(nginxText, 'proxy_http_version')).toEqual(['1.1', '1.1']);
    expect(directives(nginxText, 'proxy_set_header Connection')).toEqual(['""', '""']);
  });

  it('sends every location to the upstream with the client\'s Host, so that links point at nginx', () => {
    expect(directives(nginxText, 'proxy_pass')).toEqual([`http://${upstream![1]}`, `http://${upstream![1]}`]);
    expect(directives(nginxText, 'proxy_set_header Host')).toEqual(['$http_host', '$http_host']);
  });

  it('does not retry a scripted fault on another replica, and streams the live journal unbuffered', () => {
    expect(directives(nginxText, 'proxy_next_upstream')).toEqual(['off']);
    expect(nginxText).toMatch(/location = \/_sim\/requests\/stream \{[^}]*proxy_buffering off;/);
  });
});

describe('docs/scaling.md', () => {
  const blocks = fencedBlocks(read(join(root, 'docs', 'scaling.md'))).map((b) => b.body.trimEnd());

  it.each(['docker-compose.yml', 'nginx.conf', 'fixtures.json'])('shows examples/scaling/%s exactly as it is', (file) => {
    expect(blocks).toContain(read(join(example, file)).trimEnd());
  });
});

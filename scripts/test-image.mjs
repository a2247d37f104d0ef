// npm run test:image [-- --base <image>] (contract 4.3, decision 0054): builds the root Dockerfile with podman and
// checks the image for real: health (through the published port and the image's own HEALTHCHECK), a non-root
// user, TOKEN_SIM_* configuration, a token round trip, SIGTERM draining a request in flight and exiting 0, and
// the token still there after a restart on the same /data volume. Writes the image's size to reports/image.json
// (npm run bench reports it). Prints PASSED or FAILED and exits non-zero on failure.
//
// This machine reaches only the npm and Debian registries (no Docker Hub), so by default the base is made here
// from Debian packages: trixie (Node 20.19) with nodejs and ca-certificates by mmdebstrap, plus the npm this
// script runs under, and the machine's own extra CAs (a TLS-inspecting proxy's) so that `npm ci` in the build
// reaches the registry. It is cached as localhost/token-sim-test-base:<hash of its inputs>. `--base node:20-slim`
// uses a base you have instead (what users get by default).
//
// Without podman (or runc, or mmdebstrap when the base must be made) it says what it skips and exits 0; under
// CI=true it never skips. Containers and volumes it makes are removed whatever happens.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PODMAN = process.env.PODMAN || 'podman';
/** Here a plain `podman run` fails with crun on this kernel's cgroups; runc works (with default_ulimits = []). */
const RUNTIME = ['--runtime', 'runc'];
const IMAGE = 'localhost/token-sim:test';
const BASE_REPO = 'localhost/token-sim-test-base';
const REPORT = join(ROOT, 'reports', 'image.json');
const SUITE = 'trixie';
const MIRROR = 'http://deb.debian.org/debian';
const EXTRA_CAS = '/usr/local/share/ca-certificates';
/** The image's non-root user (Dockerfile). */
const UID = 10001;
const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const started = performance.now();
const run = randomBytes(4).toString('hex');
const names = { volume: `token-sim-test-${run}`, first: `token-sim-test-${run}-1`, second: `token-sim-test-${run}-2` };
const scratch = mkdtempSync(join(tmpdir(), 'token-sim-image-'));
const log = (line) => process.stdout.write(`${line}\n`);
const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);
const argBase = (() => {
  const i = process.argv.indexOf('--base');
  return i === -1 ? undefined : process.argv[i + 1];
})();

class Skip extends Error {}

/** Runs a command to the end; its output is captured (or written to `logFile`). Throws when it fails, unless `ok`. */
function sh(command, args, { ok = false, logFile, timeout = 600_000 } = {}) {
  const fd = logFile === undefined ? undefined : openSync(logFile, 'a');
  const res = spawnSync(command, args, { encoding: 'utf8', timeout, maxBuffer: 64 << 20, stdio: fd === undefined ? 'pipe' : ['ignore', fd, fd] });
  if (fd !== undefined) closeSync(fd);
  const out = { status: res.status, stdout: (res.stdout ?? '').trim(), stderr: (res.stderr ?? '').trim() };
  if (!ok && (res.error !== undefined || res.status !== 0)) {
    const tail = logFile === undefined ? out.stderr || out.stdout : readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-40).join('\n');
    const hint = /setting rlimit/.test(tail) ? '\n(podman here needs default_ulimits = [] under [containers] in /etc/containers/containers.conf)' : '';
    throw new Error(`${command} ${args.join(' ')} failed (${res.error?.message ?? `exit status ${String(res.status)}`}):\n${tail}${hint}`);
  }
  return out;
}
const podman = (args, options) => sh(PODMAN, [...RUNTIME, ...args], options);

/** Why `command --version` does not run here, or undefined when it does. */
function missing(command, name = command) {
  const res = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (res.error?.code === 'ENOENT') return `${name} not found${command.includes('/') ? ` at ${command}` : ' on PATH'}`;
  if (res.error !== undefined || res.status !== 0) return `${command} --version failed (${(res.stderr || res.error?.message || '').trim().split('\n')[0]})`;
  return undefined;
}

function check(what, ok, detail = '') {
  if (!ok) throw new Error(`${what}${detail === '' ? '' : `: ${detail}`}`);
  log(`  ok   ${what}${detail === '' ? '' : ` (${detail})`}`);
}

// ---- the base ---------------------------------------------------------------------------------------------
/** The npm package this script runs under (npm run sets npm_execpath), else the one on PATH. */
function npmDir() {
  const cli = process.env.npm_execpath || sh('sh', ['-c', 'command -v npm']).stdout;
  let dir = dirname(realpathSync(cli));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (pkg.name !== 'npm') throw new Error(`cannot find npm's own directory from ${cli}`);
  return { dir, version: pkg.version };
}

/** The mmdebstrap command that makes the base, and the hash of everything it depends on. */
function baseRecipe(out) {
  const npm = npmDir();
  const cas = existsSync(EXTRA_CAS) ? readdirSync(EXTRA_CAS).filter((f) => f.endsWith('.crt')).sort().map((f) => join(EXTRA_CAS, f)) : [];
  const args = [
    '--variant=minbase', '--include=nodejs,ca-certificates', '--quiet',
    // No documentation, manual pages or translations (the copyright files stay).
    ...['doc', 'man', 'locale', 'info'].map((d) => `--dpkgopt=path-exclude=/usr/share/${d}/*`),
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
    '--customize-hook=mkdir -p "$1/usr/lib/node_modules"',
    `--customize-hook=copy-in ${npm.dir} /usr/lib/node_modules`,
    '--customize-hook=ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/bin/npm"',
    '--customize-hook=ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/bin/npx"',
    ...(cas.length === 0 ? [] : [`--customize-hook=copy-in ${cas.join(' ')} /usr/local/share/ca-certificates`, '--customize-hook=chroot "$1" update-ca-certificates --fresh']),
    '--customize-hook=rm -rf "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/*',
    SUITE, out, MIRROR,
  ];
  const hash = createHash('sha256').update(JSON.stringify({ args: args.filter((a) => a !== out), npm: npm.version }));
  for (const ca of cas) hash.update(readFileSync(ca));
  return { args, tag: `${BASE_REPO}:${hash.digest('hex').slice(0, 12)}`, npm: npm.version };
}

function ensureBase() {
  const t0 = performance.now();
  const recipe = baseRecipe(join(scratch, 'base.tar'));
  if (podman(['image', 'exists', recipe.tag], { ok: true }).status === 0) {
    log(`base ${recipe.tag}: cached (Debian ${SUITE}, nodejs, npm ${recipe.npm})`);
    return recipe.tag;
  }
  const why = missing('mmdebstrap');
  if (why !== undefined) throw new Skip(`${why}: it makes the base image from Debian packages (or give --base <image>)`);
  log(`base ${recipe.tag}: making it (mmdebstrap ${SUITE} with nodejs, npm ${recipe.npm})…`);
  sh('mmdebstrap', recipe.args, { logFile: join(scratch, 'mmdebstrap.log') });
  const env = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NPM_CONFIG_UPDATE_NOTIFIER=false'];
  podman(['import', ...env.flatMap((e) => ['--change', `ENV ${e}`]), join(scratch, 'base.tar'), recipe.tag]);
  rmSync(join(scratch, 'base.tar'), { force: true });
  // Older bases of this script go (those that later builds' layers still use stay).
  for (const old of podman(['images', '--format', '{{.Repository}}:{{.Tag}}', BASE_REPO], { ok: true }).stdout.split('\n')) {
    if (old !== '' && old !== recipe.tag) podman(['rmi', old], { ok: true });
  }
  log(`base made in ${seconds(t0)} s`);
  return recipe.tag;
}

// ---- the image ----------------------------------------------------------------------------------------------
function buildImage(base) {
  const t0 = performance.now();
  const before = podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE], { ok: true }).stdout;
  log(`building ${IMAGE} from the Dockerfile with BASE_IMAGE=${base}…`);
  // --format docker: HEALTHCHECK is a field of Docker's image format (the OCI format drops it).
  podman(['build', '--format', 'docker', '--build-arg', `BASE_IMAGE=${base}`, '--tag', IMAGE, '--file', join(ROOT, 'Dockerfile'), ROOT], {
    logFile: join(scratch, 'build.log'),
    timeout: 1_200_000,
  });
  const id = podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE]).stdout;
  if (before !== '' && before !== id) podman(['rmi', before], { ok: true });
  const buildSeconds = Number(seconds(t0));
  log(`built in ${buildSeconds} s`);
  return { id, buildSeconds };
}

/** Starts a container of the image on the volume, its port published on a free loopback port; resolves with its URL. */
async function start(name, env) {
  podman(['run', '--detach', '--name', name, '--publish', '127.0.0.1::8080', '--volume', `${names.volume}:/data`, ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), IMAGE]);
  const port = /:(\d+)\s*$/.exec(podman(['port', name, '8080/tcp']).stdout)?.[1];
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    const res = await fetch(`${url}/_sim/health`).catch(() => undefined);
    if (res?.status === 200) return { url, health: await res.json() };
    if (performance.now() > deadline) throw new Error(`${name}: /_sim/health did not answer 200 within 60 s; its log:\n${podman(['logs', name], { ok: true }).stderr}`);
    await sleep(200);
  }
}

/** Sends SIGTERM through `podman stop` (the image's STOPSIGNAL) and waits; resolves with the exit code and the time it took. */
async function stop(name) {
  const t0 = performance.now();
  const stopped = new Promise((resolve) => spawn(PODMAN, [...RUNTIME, 'stop', '--time', '30', name], { stdio: 'ignore' }).once('exit', resolve));
  await stopped;
  const code = Number(podman(['inspect', '--format', '{{.State.ExitCode}}', name]).stdout);
  return { code, seconds: (performance.now() - t0) / 1000 };
}

let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  for (const name of [names.first, names.second]) spawnSync(PODMAN, [...RUNTIME, 'rm', '--force', '--time', '0', name], { stdio: 'ignore' });
  spawnSync(PODMAN, ['volume', 'rm', '--force', names.volume], { stdio: 'ignore' });
  rmSync(scratch, { recursive: true, force: true });
}

// ---- the checks -----------------------------------------------------------------------------------------
async function checks() {
  const fixtures = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'default.json'), 'utf8'));
  const { username, password } = fixtures.credentials[0];
  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const admin = randomBytes(24).toString('hex');
  const env = { TOKEN_SIM_ADMIN_TOKEN: admin, TOKEN_SIM_LOG: 'json' };
  podman(['volume', 'create', names.volume]);

  log(`\nfirst container (${names.first}, volume ${names.volume}):`);
  const first = await start(names.first, env);
  check('GET /_sim/health answers 200 through the published port', first.health.status === 'ok', `${first.url}, ${JSON.stringify(first.health)}`);
  const hc = podman(['healthcheck', 'run', names.first], { ok: true });
  check("the image's HEALTHCHECK passes (podman healthcheck run)", hc.status === 0, hc.stdout || hc.stderr || 'healthy');
  const inside = JSON.parse(
    podman(['exec', names.first, 'node', '-e', `const fs = require('node:fs'); const s = (p) => { const x = fs.statSync(p); return { uid: x.uid, mode: (x.mode & 0o777).toString(8) }; };
      process.stdout.write(JSON.stringify({ uid: process.getuid(), pid1: fs.readFileSync('/proc/1/cmdline', 'utf8').split('\\0').join(' ').trim(), data: s('/data'), key: s('/data/state.json.key') }))`]).stdout,
  );
  check('runs as the non-root user, node as PID 1', inside.uid === UID && /^node \/app\/bin\/token-sim\.js$/.test(inside.pid1), `uid ${inside.uid}, PID 1: ${inside.pid1}`);
  check('/data belongs to that user; the state key beside the state file has mode 0600', inside.data.uid === UID && inside.key.uid === UID && inside.key.mode === '600', `/data ${inside.data.mode}, key ${inside.key.mode}`);
  const open = await fetch(`${first.url}/_sim/scenarios`);
  const withToken = await fetch(`${first.url}/_sim/scenarios`, { headers: { Authorization: `Bearer ${admin}` } });
  check('TOKEN_SIM_ADMIN_TOKEN configures it: /_sim asks for the admin token', open.status === 401 && withToken.status === 200, `${open.status} without, ${withToken.status} with`);

  const body = JSON.stringify({
    paymentInstrument: { type: 'card/front', cardHolderName: 'Ada Lovelace', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
    merchant: { entity: 'default' },
  });
  const created = await fetch(`${first.url}/tokens`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': TOKEN_TYPE, Accept: TOKEN_TYPE }, body });
  const token = await created.json();
  const href = token.tokenPaymentInstrument?.href ?? '';
  check('POST /tokens through the published port answers 201 with a link on that port', created.status === 201 && href.startsWith(`${first.url}/tokens/`), `${created.status}, ${href}`);
  const path = new URL(href).pathname;
  const got = await fetch(`${first.url}${path}`, { headers: { Authorization: auth, Accept: TOKEN_TYPE } });
  const read = await got.json();
  check('GET of its link answers 200 with the same token', got.status === 200 && read.tokenId === token.tokenId, `tokenId ${read.tokenId}`);

  // A request in flight when SIGTERM comes: scripted to answer 3 s late, it must still be answered.
  const slow = { name: 'drain', rules: [{ id: 'slow', when: { operation: 'getToken', times: 1 }, then: { delayMs: 3000 } }] };
  const put = await fetch(`${first.url}/_sim/scenarios`, { method: 'PUT', headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, body: JSON.stringify(slow) });
  check('PUT /_sim/scenarios: one getToken answered 3 s late', put.status === 200, String(put.status));
  const t0 = performance.now();
  const inFlight = fetch(`${first.url}${path}`, { headers: { Authorization: auth, Accept: TOKEN_TYPE } }).then(
    async (r) => ({ status: r.status, body: await r.json(), ms: performance.now() - t0 }),
    (err) => ({ status: `no answer (${err.cause?.code ?? err.message})`, body: {}, ms: performance.now() - t0 }),
  );
  // SIGTERM once the request is in its delay: when the scenario has counted it.
  const arrived = async () => {
    const state = await (await fetch(`${first.url}/_sim/state`, { headers: { Authorization: `Bearer ${admin}` } })).json();
    return Object.values(state.counters.scenarios).some((c) => (c[username]?.matches ?? 0) > 0);
  };
  while (!(await arrived())) await sleep(20);
  const stopped = await stop(names.first);
  const late = await inFlight;
  check('SIGTERM (podman stop) lets the request in flight finish: 200 after its 3 s', late.status === 200 && late.body.tokenId === token.tokenId && late.ms >= 2900, `${late.status} after ${(late.ms / 1000).toFixed(1)} s`);
  check('then the process exits 0, well before podman would SIGKILL it', stopped.code === 0 && stopped.seconds < 25, `exit code ${stopped.code} after ${stopped.seconds.toFixed(1)} s`);
  const logs = podman(['logs', names.first], { ok: true });
  check('it said where it listens, and no warning about an open /_sim', /token-sim listening on http:\/\/0\.0\.0\.0:8080/.test(logs.stdout) && !/has no --admin-token/.test(logs.stderr));

  log(`\nsecond container on the same volume (${names.second}):`);
  const second = await start(names.second, env);
  const again = await fetch(`${second.url}${path}`, { headers: { Authorization: auth, Accept: TOKEN_TYPE } });
  const after = await again.json();
  check('the token is still there after the restart (state file and key on /data)', again.status === 200 && after.tokenId === token.tokenId && after.tokenPaymentInstrument.href === `${second.url}${path}`, `${again.status}, tokenId ${after.tokenId}`);
  const stoppedAgain = await stop(names.second);
  check('SIGTERM again: exit 0', stoppedAgain.code === 0, `after ${stoppedAgain.seconds.toFixed(1)} s`);
}

function reportSize(base, built) {
  const size = (image) => Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]).stdout);
  const bytes = size(IMAGE);
  const baseBytes = size(base);
  const mib = (n) => Math.round((n / 1048576) * 10) / 10;
  const report = { measuredAt: new Date().toISOString(), image: IMAGE, imageId: built.id, base, bytes, mib: mib(bytes), baseBytes, baseMib: mib(baseBytes), addedBytes: bytes - baseBytes, addedMib: mib(bytes - baseBytes), buildSeconds: built.buildSeconds };
  mkdirSync(dirname(REPORT), { recursive: true });
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
  log(`\nimage size: ${bytes} bytes (${report.mib} MiB): ${report.baseMib} MiB of base (${base}) and ${report.addedMib} MiB of token-sim's layers; written to reports/image.json`);
}

async function main() {
  const why = missing(PODMAN, 'podman') ?? missing('runc');
  if (why !== undefined) throw new Skip(why);
  const base = argBase ?? ensureBase();
  const built = buildImage(base);
  await checks();
  reportSize(base, built);
}

// Whatever ends this process, its containers and volume go with it.
process.once('exit', cleanUp);
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));
try {
  await main();
  log(`\ntest:image PASSED in ${seconds(started)} s`);
} catch (err) {
  if (err instanceof Skip && process.env.CI !== 'true') {
    log(`SKIPPED test:image (npm run test:image): ${err.message}; install podman, runc and mmdebstrap (apt-get install podman runc mmdebstrap) or set PODMAN. CI (CI=true) never skips it.`);
  } else {
    log(`\ntest:image FAILED after ${seconds(started)} s: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
} finally {
  cleanUp();
}

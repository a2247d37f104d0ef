// The Redis store's rows of `npm run bench` (issue 16): one redis-server for the whole run, the token-sim
// servers on it (one process; `--workers 2`), and the figures comparing their GET with the memory store's,
// measured in the same interleaved compare() as the memory store's GET row (bench/run.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { clearTimeout, setTimeout } from 'node:timers';
import { availableParallelism } from 'node:os';

/** The redis-server executable: `REDIS_SERVER`, or `redis-server` on PATH (as the Redis tests use). */
export const REDIS_SERVER = process.env.REDIS_SERVER || 'redis-server';
/** The Redis rows' targets (issue 16): one Redis process against the memory store, two workers against one. */
export const REDIS_VS_MEMORY = 0.5;
export const WORKERS_VS_ONE = 1.3;
export const WORKERS = 2;

let clockTick = 100;
try {
  clockTick = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
} catch {
  // Linux's usual value.
}
/** CPU seconds (user + system) process `pid` has used, or 0 once it is gone. */
function processCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTick;
  } catch {
    return 0;
  }
}
/** The ids of the processes `pid` started and that still run (any of its threads may have started them). */
function childPids(pid) {
  const pids = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        pids.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // A thread that ended meanwhile.
      }
    }
  } catch {
    // The process has ended, or the kernel does not list children: the process alone.
  }
  return pids;
}
/**
 * CPU seconds used by `pid` and every process below it that still runs: a `--workers` server is a node:cluster
 * primary (which also hands out the connections) and its workers.
 */
export const treeCpu = (pid) => processCpu(pid) + childPids(pid).reduce((sum, child) => sum + treeCpu(child), 0);

/**
 * Why `command args` does not run as the tool its output's `pattern` names, or undefined when it does
 * (checked by its output alone: `wrk -v` prints its version and exits 1).
 */
function toolMissing(command, args, pattern) {
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: 10_000 });
  if (run.error?.code === 'ENOENT') return `${command} not found${command.includes('/') ? '' : ' on PATH'}`;
  if (run.error !== undefined || !pattern.test(run.stdout)) {
    return `${command} ${args.join(' ')} failed (${(run.stderr || run.error?.message || run.stdout || `exit status ${run.status}`).trim().split('\n')[0]})`;
  }
  return undefined;
}
/** Why redis-server cannot run here, or undefined when it can. */
const redisMissing = () => toolMissing(REDIS_SERVER, ['--version'], /^Redis server v=/);

/** The load generator of the workers row: `WRK`, or `wrk` on PATH (decision 0040). */
export const WRK = process.env.WRK || 'wrk';
/** Why wrk cannot run here, or undefined when it can. */
const wrkMissing = () => toolMissing(WRK, ['-v'], /^wrk /);

/** `2.5ms`, `830.00us`, `1.02s` (wrk's latency figures) in milliseconds. */
function wrkMs(text) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!m) throw new Error(`wrk latency not understood: ${text}`);
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]];
}

/** One wrk run against `server`: req/s and p99 from its report; non-2xx answers or socket errors fail the run. */
async function wrkRun(server, request, seconds, connections) {
  const headers = Object.entries(request.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  // wrk takes whole seconds only.
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--latency', ...headers, `${server.url}${request.path}`];
  const child = spawn(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const [code] = await once(child, 'exit');
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  if (code !== 0 || !rps || !p50 || !p99) throw new Error(`wrk against ${server.name} failed (exit ${code}): ${out.trim().split('\n').slice(-3).join(' / ')}`);
  if (/Non-2xx or 3xx responses|Socket errors/.test(out)) throw new Error(`wrk against ${server.name}: ${out.match(/(Non-2xx.*|Socket errors.*)/)[0]}`);
  return { rps: Number(rps[1]), p50: wrkMs(p50[1]), p99: wrkMs(p99[1]) };
}

/**
 * The workers row's measurement: one Redis process and `--workers 2`, interleaved (A B, B A), each run after a
 * warm-up and once `settle` says the servers are idle, under wrk: a load generator in C that needs a small
 * share of a core, where autocannon (in the bench's own process) needs most of one, leaving a 2-core machine
 * no core for a second worker. Resolves to a Map server → {rps, p50, p99, cpuUs}, or `{skipped: line}` without
 * wrk (under CI=true, which installs it, a missing wrk fails the run instead).
 */
export async function scalingCompare(servers, requestOf, { seconds, warmup, connections, settle }) {
  const missing = wrkMissing();
  if (missing !== undefined) {
    if (process.env.CI === 'true') throw new Error(`${missing}: CI installs wrk (apt-get install wrk), so the workers row must run`);
    return { skipped: `measured with autocannon instead of wrk (${missing}; apt-get install wrk): the load generator takes most of a core` };
  }
  const runs = new Map(servers.map((server) => [server, []]));
  for (const order of [servers, [...servers].reverse()]) {
    for (const server of order) {
      const request = requestOf(server);
      await settle(servers);
      await wrkRun(server, request, warmup, connections);
      await settle(servers);
      const cpu0 = server.cpu();
      const run = await wrkRun(server, request, seconds, connections);
      run.cpuUs = ((server.cpu() - cpu0) * 1e6) / (run.rps * Math.max(1, Math.round(seconds)));
      runs.get(server).push(run);
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return new Map([...runs].map(([server, rs]) => [server, { rps: mean(rs.map((r) => r.rps)), p50: mean(rs.map((r) => r.p50)), p99: mean(rs.map((r) => r.p99)), cpuUs: mean(rs.map((r) => r.cpuUs)) }]));
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts one redis-server for the run: a free loopback port, nothing persisted. `children` is the run's set of
 * processes killed when it exits, whatever ends it. Resolves to `{url, cpu(), stop()}`, or to
 * `{skipped: line}` when there is no redis-server here; under CI=true (.ci/run, which installs it) a missing
 * redis-server is an error, not a skip, as for the Redis tests.
 */
export async function startRedis(children) {
  const missing = redisMissing();
  if (missing !== undefined) {
    const fix = 'install it (apt-get install redis-server) or set REDIS_SERVER';
    if (process.env.CI === 'true') throw new Error(`the Redis rows need redis-server under CI=true (never skipped there): ${missing}; ${fix}`);
    return { skipped: `Redis rows skipped: ${missing}; ${fix}` };
  }
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    const ready = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const onData = (chunk) => {
        out += chunk.toString();
        if (!out.includes('Ready to accept connections')) return;
        clearTimeout(timer);
        resolve(true);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.once('error', () => resolve(false));
    });
    // Drain its output from here on, so a full pipe never blocks it.
    child.stdout.resume();
    child.stderr.resume();
    if (ready) {
      return {
        url: `redis://127.0.0.1:${port}`,
        cpu: () => processCpu(child.pid),
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          await once(child, 'exit');
        },
      };
    }
    lastOutput = out;
    // Another process took the port between freePort() and the start: try another.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  throw new Error(`redis-server did not start: ${lastOutput.trim().split('\n').slice(-3).join(' / ')}`);
}

/**
 * The token-sim servers on `redis`, each under its own key prefix: one process, and `--workers 2`. Their
 * `cpu()` counts every token-sim process and the redis-server, the whole cost of an answer.
 */
export async function startRedisServers(redis, spawnServer, cli, args) {
  const store = (prefix) => ['--store', redis.url, '--store-prefix', prefix];
  const withRedisCpu = (server) => {
    server.cpu = () => treeCpu(server.child.pid) + redis.cpu();
    return server;
  };
  const one = withRedisCpu(await spawnServer('token-sim (Redis store, 1 process)', cli, [...args, ...store('bench-one:')]));
  const workers = withRedisCpu(
    await spawnServer(`token-sim (Redis store, --workers ${WORKERS})`, cli, [...args, ...store('bench-workers:'), '--workers', String(WORKERS)]),
  );
  return { one, workers };
}

/**
 * The Redis rows, from the GET compare `m` of the memory store, one Redis process and the workers. The
 * workers' target holds only with at least two cores (reported on fewer).
 */
export function recordRedisRows(m, { memory, one, workers, scaling, scalingMore }, record) {
  const mem = m.get(memory);
  const r1 = m.get(one);
  const rw = m.get(workers);
  const p99s = (a, b) => `p99 ${fmtMs(a.p99)} vs ${fmtMs(b.p99)} ms`;
  const vsMemory = r1.rps / mem.rps;
  record(
    'GET token throughput, Redis store (1 process) vs memory store',
    `${vsMemory.toFixed(2)} (${r1.rps.toFixed(0)} vs ${mem.rps.toFixed(0)} req/s; ${p99s(r1, mem)})`,
    `≥ ${REDIS_VS_MEMORY}`,
    vsMemory >= REDIS_VS_MEMORY,
  );
  const cores = availableParallelism();
  const counts = cores >= WORKERS && scaling.skipped === undefined;
  const [w1, ww] = scaling.skipped === undefined ? [scaling.get(one), scaling.get(workers)] : [r1, rw];
  const vsOne = ww.rps / w1.rps;
  const withAutocannon = `; with autocannon in this process ${(rw.rps / r1.rps).toFixed(2)}, ${rw.rps.toFixed(0)} vs ${r1.rps.toFixed(0)} req/s`;
  record(
    `GET token throughput, Redis store, --workers ${WORKERS} vs 1 process${scaling.skipped === undefined ? ' (wrk)' : ''}`,
    `${vsOne.toFixed(2)} (${ww.rps.toFixed(0)} vs ${w1.rps.toFixed(0)} req/s; ${p99s(ww, w1)}` +
      `${scaling.skipped === undefined ? `; ${ww.cpuUs.toFixed(0)} vs ${w1.cpuUs.toFixed(0)} µs CPU/answer with Redis${withAutocannon}` : ''})`,
    counts
      ? `≥ ${WORKERS_VS_ONE} (${cores} cores)`
      : scaling.skipped !== undefined
        ? `reported: ${scaling.skipped}`
        : `reported (${cores} core: the target needs ${WORKERS})`,
    !counts || vsOne >= WORKERS_VS_ONE,
  );
  if (scalingMore !== undefined && scalingMore.map.skipped === undefined) {
    // Not a target: the same comparison with twice the connections, so each worker has as many as the one
    // process had above (a read-only batch's check costs per batch, so a worker's batches grow with them).
    const [m1, mw] = [scalingMore.map.get(one), scalingMore.map.get(workers)];
    record(
      `GET token throughput, Redis store, --workers ${WORKERS} vs 1 process (wrk, ${scalingMore.connections} connections)`,
      `${(mw.rps / m1.rps).toFixed(2)} (${mw.rps.toFixed(0)} vs ${m1.rps.toFixed(0)} req/s; ${p99s(mw, m1)})`,
      'reported',
      true,
    );
  }
}
const fmtMs = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

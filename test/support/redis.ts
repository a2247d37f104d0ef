/**
 * The Redis store's tests (`test/**\/*.redis.test.ts`, jest's `redis` project) run against a REAL
 * redis-server, never a mock: Debian's `redis-server` (on PATH, or `REDIS_SERVER`). `startRedis()` starts
 * one on a free loopback port with no persistence, and stops it again; each test keys its data under its
 * own `uniquePrefix(label)`, so tests sharing one server never see each other's keys.
 *
 * Without redis-server a suite is skipped, saying so in one line; with CI=true (set by .ci/run, which
 * installs redis-server) it never skips: a missing redis-server fails the suite there. The same rule as the
 * dashboard's browser tests (test/support/browser.ts).
 */
import { afterAll, afterEach, beforeAll, describe } from '@jest/globals';
import { createSimulator, type ComposedSimulator } from '../../src/simulator/compose.js';
import type { Simulator } from '../../src/simulator/facade.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The redis-server executable: `REDIS_SERVER`, or `redis-server` on PATH. */
export const REDIS_SERVER = process.env.REDIS_SERVER || 'redis-server';

/** Why `command` cannot run as a redis-server here, or undefined when it can. */
export function redisServerMissing(command: string): string | undefined {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return command.includes('/') ? `redis-server not found at ${command}` : `${command} not found on PATH`;
  if (run.error !== undefined || run.status !== 0) {
    const why = (run.stderr || run.error?.message || `exit status ${String(run.status)}`).trim().split('\n')[0];
    return `${command} --version failed (${why})`;
  }
  if (!/^Redis server v=/.test(run.stdout)) return `${command} --version did not say "Redis server v=…" (${run.stdout.trim().split('\n')[0] ?? ''})`;
  return undefined;
}

let checked: { reason: string | undefined } | undefined;
/** Why redis-server cannot run here (checked once per test file), or undefined when it can. */
export const redisMissing = (): string | undefined => (checked ??= { reason: redisServerMissing(REDIS_SERVER) }).reason;

/**
 * The line that says a Redis suite is skipped, or undefined when it runs: it runs when redis-server is
 * there, and always under CI=true (where a missing redis-server fails it instead).
 */
export function redisSkipLine(file: string, reason: string | undefined, ci: string | undefined): string | undefined {
  if (reason === undefined || ci === 'true') return undefined;
  return `SKIPPED the Redis store tests (${file}): ${reason}; install it (apt-get install redis-server) or set REDIS_SERVER. CI (CI=true) never skips them.`;
}

/**
 * `describe`, or `describe.skip` with one line saying which suite is skipped and why when there is no
 * redis-server outside CI. Under CI=true a missing redis-server is not a reason to skip: the suite runs
 * and fails. Call it with the test file's `import.meta.url`.
 */
export function redisDescribe(file: string): typeof describe | typeof describe.skip {
  const line = redisSkipLine(relative(ROOT, fileURLToPath(file)), redisMissing(), process.env.CI);
  if (line === undefined) return describe;
  // Straight to stderr: jest shows no console output of a suite whose tests are all skipped.
  process.stderr.write(`${line}\n`);
  return describe.skip;
}

/** A key prefix of its own for one test, e.g. `t:create:9f2c41d0:`. */
export function uniquePrefix(label: string): string {
  return `t:${label.replace(/[^\w.-]+/g, '-')}:${randomBytes(4).toString('hex')}:`;
}

/** A redis-server started by `startRedis()`. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The server process's id (a new one after `restart()`). */
  readonly pid: number;
  /** SIGTERM (through its watchdog), wait for the process to exit (SIGKILL after 5 s). Does nothing once stopped. */
  stop(): Promise<void>;
  /** Stop, then start again on the same port: an empty server (nothing is persisted). */
  restart(): Promise<void>;
  /** FLUSHALL: every key of every database gone. */
  flush(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (the system's choice for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Encodes one command as a RESP array of bulk strings. */
const resp = (args: readonly string[]): string => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * One command over a fresh connection, answered by a one-line reply (`+PONG`, `+OK`, `-ERR …`): the reply
 * line, or a rejection when the connection fails or nothing comes back within `timeoutMs`.
 */
export function redisCommand(port: number, args: readonly string[], timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (error: Error | undefined, line?: string): void => {
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(line ?? '');
    };
    socket.setTimeout(timeoutMs, () => done(new Error(`no reply to ${args[0] ?? ''} within ${timeoutMs} ms`)));
    socket.once('error', (error) => done(error));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const end = reply.indexOf('\r\n');
      if (end >= 0) done(undefined, reply.slice(0, end));
    });
    socket.once('connect', () => socket.write(resp(args)));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `child` has exited (at once when it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Runs redis-server under a small `sh` that watches its own stdin, a pipe from this test process: when the
 * pipe closes, because `stop()` closes it or because this process has ended in any way (even SIGKILL, as
 * jest may end a worker), it sends redis-server SIGTERM and exits with it. So no redis-server outlives
 * the tests. (An 'exit' handler would not do: inside a jest test, `process` is a copy whose events never
 * fire.) The server's pid comes back on fd 3. The watcher takes the pipe as fd 4: without job control, a
 * background command's own stdin is /dev/null.
 */
const WATCHDOG = `exec 4<&0 </dev/null
"$@" 3>&- 4<&- &
server=$!
echo "$server" >&3
exec 3>&-
{ cat >/dev/null; kill -TERM "$server" 2>/dev/null; } <&4 &
exec 4<&-
wait "$server"`;

/** One running redis-server: its watchdog shell and its own pid. */
interface Running {
  readonly shell: ChildProcess;
  readonly pid: number;
}

/**
 * Closes the watchdog's stdin (redis-server gets SIGTERM) and waits for both to exit; after `graceMs`,
 * SIGKILL to both.
 */
async function terminate({ shell, pid }: Running, graceMs = 5_000): Promise<void> {
  const gone = exited(shell);
  shell.stdin?.destroy();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      for (const kill of [() => process.kill(pid, 'SIGKILL'), () => shell.kill('SIGKILL')]) {
        try {
          kill();
        } catch {
          // already gone
        }
      }
      resolve();
    }, graceMs);
  });
  await Promise.race([gone, late]);
  clearTimeout(timer);
  await gone;
}

/** Thrown when redis-server exits before it answers: most often the port was taken in the meantime. */
class ServerExited extends Error {}

/**
 * What `startRedis()` runs for a server on `port`: `sh -c WATCHDOG … redis-server <options>`, stdin and fd 3
 * piped (stdin is the watchdog's lifeline, fd 3 gives the server's pid).
 */
export function redisCommandLine(port: number, dir?: string): { command: string; args: string[] } {
  const options = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--save', '',
    // Persisted (an append-only file in `dir`, written on every change) only where a test restarts a server
    // and needs its data back: the fault tests.
    '--appendonly', dir === undefined ? 'no' : 'yes',
    ...(dir === undefined ? [] : ['--appendfsync', 'always']),
    '--daemonize', 'no',
    '--loglevel', 'warning',
    '--logfile', '',
    // Nothing is written, but should it be, not into the repository.
    '--dir', dir ?? tmpdir(),
  ];
  return { command: 'sh', args: ['-c', WATCHDOG, 'redis-watchdog', REDIS_SERVER, ...options] };
}

/** Spawns redis-server on `port` and waits until it answers PING (up to `timeoutMs`). */
async function spawnOn(port: number, dir?: string, timeoutMs = 10_000): Promise<Running> {
  const { command, args } = redisCommandLine(port, dir);
  const shell = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  // A forgotten server must not keep the test process alive (its watchdog ends it when that process ends).
  shell.unref();
  for (const stream of shell.stdio) (stream as { unref?: () => void } | null)?.unref?.();
  shell.once('exit', () => shell.stdin?.destroy());
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  shell.stdout?.on('data', keep);
  shell.stderr?.on('data', keep);
  let pidText = '';
  (shell.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (chunk: Buffer) => {
    pidText += chunk.toString('utf8');
  });
  let spawnError: Error | undefined;
  shell.once('error', (error) => {
    spawnError = error;
  });
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError !== undefined) throw new Error(`could not start ${REDIS_SERVER} (through sh): ${spawnError.message}`);
    if (shell.exitCode !== null || shell.signalCode !== null) {
      throw new ServerExited(`${REDIS_SERVER} on port ${port} exited (${String(shell.exitCode ?? shell.signalCode)}): ${output.trim()}`);
    }
    const pong = await redisCommand(port, ['PING'], 500).catch(() => undefined);
    const pid = Number.parseInt(pidText, 10);
    if (pong === '+PONG' && pid > 0) return { shell, pid };
    if (Date.now() > until) {
      if (pid > 0) await terminate({ shell, pid });
      else shell.kill('SIGKILL');
      throw new Error(`${REDIS_SERVER} on port ${port} did not answer PING within ${timeoutMs} ms: ${output.trim()}`);
    }
    await sleep(10);
  }
}

/**
 * A fresh redis-server on a free loopback port, answering PING, with no persistence. Stop it in afterAll;
 * one left running is stopped by its watchdog when the test process ends.
 */
export async function startRedis(options: { persistIn?: string } = {}): Promise<RedisServer> {
  const dir = options.persistIn;
  const reason = redisMissing();
  if (reason !== undefined) throw new Error(`the Redis store tests need redis-server: ${reason}`);
  let first: Running | undefined;
  let port = 0;
  // Another process may take the free port between our close and redis-server's bind: try a new one.
  for (let attempt = 1; first === undefined; attempt += 1) {
    port = await freePort();
    try {
      first = await spawnOn(port, dir);
    } catch (error) {
      if (!(error instanceof ServerExited) || attempt >= 5) throw error;
    }
  }
  let current: Running = first;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return current.pid;
    },
    stop: () => terminate(current),
    async restart() {
      await terminate(current);
      // The same port: it was ours a moment ago; give the system a few tries should it linger.
      for (let attempt = 1; ; attempt += 1) {
        try {
          current = await spawnOn(port, dir);
          return;
        } catch (error) {
          if (!(error instanceof ServerExited) || attempt >= 5) throw error;
          await sleep(100 * attempt);
        }
      }
    },
    async flush() {
      const reply = await redisCommand(port, ['FLUSHALL']);
      if (reply !== '+OK') throw new Error(`FLUSHALL answered ${reply}`);
    },
  };
}

/**
 * Registers a describe block's hooks for simulators that share one real redis-server: the server started
 * before all tests, every simulator's store closed after each test, the server stopped after all. `simulators(n,
 * label)` makes n simulators on one fresh prefix, like n processes started with the same options (seeded,
 * frozen at 2030-01-01 unless `options` say otherwise).
 */
export function sharedRedisSimulators(): { simulators: (n: number, label: string, options?: Record<string, unknown>) => Simulator[] } {
  let redis: RedisServer | undefined;
  const opened: ComposedSimulator[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(async (sim) => sim.replica?.close()));
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    simulators(n, label, options = {}) {
      const prefix = uniquePrefix(label);
      const sims = Array.from({ length: n }, () =>
        createSimulator({ seed: 'shared', now: '2030-01-01T00:00:00Z', frozen: true, store: (redis as RedisServer).url, storePrefix: prefix, ...options }, { writeErr: () => undefined }),
      );
      opened.push(...sims);
      return sims;
    },
  };
}

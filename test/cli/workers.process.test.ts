/**
 * `--workers <n>` as real processes (decision 0038): refused with one line and exit 2 without a Redis store or
 * with a bad count; with a real redis-server, a primary whose n worker processes answer on one port (also with
 * --port 0), that replaces a worker that dies, stops on SIGTERM leaving no process behind, and stops all with
 * the worker's one line and exit 2 when a worker cannot start. Real signals and children need real processes.
 *
 * It runs bin/token-sim.js on the built dist/, as the other process tests do; TEST_TOKEN_SIM_BIN runs another
 * build (`npx tsc -p tsconfig.build.json --outDir <dir>/dist` beside a copy of bin/), and is not passed on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { BIN, listening, type Run } from '../support/cli.js';
import { redisDescribe, startRedis, type RedisServer } from '../support/redis.js';

const bin = process.env.TEST_TOKEN_SIM_BIN ?? BIN;

/** `token-sim <args>` with the environment this test gives it (and none of the runner's TOKEN_SIM_* variables). */
function start(args: string[], env: Record<string, string> = {}): Run {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TOKEN_SIM_') && name !== 'TEST_TOKEN_SIM_BIN'));
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...base, NO_COLOR: '', FORCE_COLOR: '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The pids of a process's children (`ps --ppid`). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['--ppid', String(pid), '-o', 'pid='], { encoding: 'utf8' }).split('\n').filter((l) => l.trim() !== '').map(Number);
  } catch {
    return []; // ps exits 1 when it lists none
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The fingerprint of the certificate a new TLS connection is shown, verified against `ca`. */
function presentedBy(url: string, ca: Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.destroy();
      if (cert) resolve(cert.fingerprint256);
      else reject(new Error('no certificate'));
    });
    socket.on('error', reject);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, holds: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > end) throw new Error(`still not: ${what}`);
    await sleep(25);
  }
}

/** Resolves with the exit code and the stderr lines of a run that should end by itself. */
async function ended(r: Run): Promise<{ code: number | null; lines: string[] }> {
  const code = await r.exited;
  return { code, lines: r.stderr().trimEnd().split('\n') };
}

const health = async (url: string): Promise<number> =>
  (await fetch(`${url}/_sim/health`, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(5_000) })).status;

describe('token-sim --workers, refused', () => {
  it.each([
    [['--workers', '2'], /^token-sim: --workers 2 needs --store redis:\/\/host:port: with the memory store each worker would have its own state$/],
    [['--workers', 'auto'], /^token-sim: --workers auto needs --store redis:\/\/host:port/],
    [['--workers', '0'], /^token-sim: option '--workers <n\|auto>' argument '0' is invalid\. must be a whole number from 1 to 64 or auto$/],
    [['--workers', 'abc'], /^token-sim: option '--workers <n\|auto>' argument 'abc' is invalid\./],
    [['--store', 'ftp://x'], /^token-sim: --store must be memory or a redis:\/\/host:port\[\/db\] or rediss:\/\/ URL, got 'ftp:\/\/x'$/],
  ])('%j: one line on stderr, nothing on stdout, exit 2', async (args, line) => {
    const r = start(['--port', '0', ...args]);
    const { code, lines } = await ended(r);
    expect(code).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(r.stdout()).toBe('');
  });

  it('refuses TOKEN_SIM_WORKERS=2 with the memory store the same way', async () => {
    const r = start(['--port', '0'], { TOKEN_SIM_WORKERS: '2' });
    const { code, lines } = await ended(r);
    expect(code).toBe(2);
    expect(lines).toEqual(['token-sim: --workers 2 needs --store redis://host:port: with the memory store each worker would have its own state']);
  });
});

redisDescribe(import.meta.url)('token-sim --workers with a real Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  /** A run of the CLI that is killed should the test fail half-way. */
  async function withRun(args: string[], env: Record<string, string>, body: (r: Run) => Promise<void>): Promise<void> {
    const r = start(args, env);
    try {
      await body(r);
    } finally {
      if (r.child.exitCode === null && r.child.signalCode === null) {
        for (const pid of childrenOf(r.child.pid!)) process.kill(pid, 'SIGKILL');
        r.child.kill('SIGKILL');
      }
    }
  }

  it('with --port 0 runs two workers that answer on one port, and SIGTERM stops them all and exits 0', async () => {
    await withRun(['--workers', '2', '--port', '0', '--store', redis.url, '--log', 'silent'], {}, async (r) => {
      const url = await listening(r);
      const workers = childrenOf(r.child.pid!);
      expect(workers).toHaveLength(2);
      for (let i = 0; i < 6; i += 1) expect(await health(url)).toBe(200);
      expect(r.stdout()).toBe(`token-sim listening on ${url}\n`);
      expect(r.child.kill('SIGTERM')).toBe(true);
      expect(await r.exited).toBe(0);
      await until('every worker has exited', () => workers.every((pid) => !alive(pid)), 5_000);
      expect(childrenOf(r.child.pid!)).toEqual([]);
    });
  });

  it('with --tls makes the certificate once in the primary: every worker presents it, and the CA line follows the listening line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-workers-tls-'));
    try {
      await withRun(['--workers', '2', '--port', '0', '--store', redis.url, '--log', 'silent', '--tls', '--tls-dir', dir], {}, async (r) => {
        const url = await listening(r);
        expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
        await until('the CA line', () => r.stdout().split('\n').length >= 3);
        expect(r.stdout()).toBe(`token-sim listening on ${url}\ntoken-sim CA certificate: ${join(dir, 'ca.pem')}\n`);
        const made = new X509Certificate(readFileSync(join(dir, 'server.pem'))).fingerprint256;
        const ca = readFileSync(join(dir, 'ca.pem'));
        // New connections spread over both workers: each presents the one certificate, and the CA vouches for it.
        const seen = new Set<string>();
        for (let i = 0; i < 8; i += 1) seen.add(await presentedBy(url, ca));
        expect([...seen]).toEqual([made]);
        expect(r.child.kill('SIGTERM')).toBe(true);
        expect(await r.exited).toBe(0);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the banner once, with the store, its key prefix and the workers', async () => {
    await withRun(['--workers', '2', '--port', '0', '--store', `${redis.url}/1`, '--store-prefix', 'qa:', '--log', 'silent'], { FORCE_COLOR: '1', NO_COLOR: '1' }, async (r) => {
      await listening(r);
      await until('the banner is written', () => r.stderr().includes('Docs'));
      const lines = r.stderr().trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('token-sim '))).toHaveLength(1);
      expect(lines).toContain(`  Store       ${redis.url}/1 (keys qa:*)`);
      expect(lines).toContain('  Workers     2');
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
    });
  });

  it('writes a line that every worker writes while starting once (the warning about a non-loopback host)', async () => {
    await withRun(['--workers', '2', '--port', '0', '--host', '0.0.0.0', '--store', redis.url, '--log', 'silent'], {}, async (r) => {
      await until('the listening line is written', () => r.stdout().includes('\n'));
      expect(r.stdout()).toMatch(/^token-sim listening on http:\/\/0\.0\.0\.0:\d+\n$/);
      const warnings = r.stderr().trimEnd().split('\n').filter((line) => line.startsWith('token-sim: warning: listening on 0.0.0.0'));
      expect(warnings).toHaveLength(1);
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
    });
  });

  it('replaces a worker that dies, with one line, and keeps answering', async () => {
    await withRun(['--workers', '2', '--port', '0', '--store', redis.url, '--log', 'silent'], {}, async (r) => {
      const url = await listening(r);
      const [victim, survivor] = childrenOf(r.child.pid!);
      process.kill(victim!, 'SIGKILL');
      // A connection node:cluster hands to the worker in the instant it dies is lost: ask once the primary knows.
      await until('the primary has seen it die', () => r.stderr().includes('stopped unexpectedly'));
      expect(await health(url)).toBe(200);
      await until('a new worker runs', () => {
        const now = childrenOf(r.child.pid!);
        return now.length === 2 && !now.includes(victim!) && now.includes(survivor!);
      });
      expect(r.stderr().trimEnd().split('\n')).toEqual([`token-sim: worker ${victim} stopped unexpectedly (signal SIGKILL); starting another in 1s`]);
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
    });
  });

  it('stops every worker with the one line and exit 2 when they cannot start (port in use), with no restart', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await withRun(['--workers', '2', '--port', String(port), '--store', redis.url], {}, async (r) => {
        const { code, lines } = await ended(r);
        expect(code).toBe(2);
        expect(lines).toEqual([`token-sim: port ${port} is already in use on 127.0.0.1`]);
        expect(r.stdout()).toBe('');
      });
    } finally {
      taken.close();
    }
  });
});

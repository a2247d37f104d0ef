/**
 * The harness the Redis store's tests stand on (test/support/redis.ts): a real redis-server on a free
 * loopback port, restarted on the same port, stopped without leaving a process behind.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { redisCommand, redisCommandLine, redisDescribe, startRedis, uniquePrefix, type RedisServer } from '../support/redis.js';

/** A client that fails at once instead of retrying, so that a dead server shows as an error. */
const connect = (url: string): Redis => new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });

/** How a fresh TCP connection to the port ends: 'connected' or the error code (ECONNREFUSED). */
const dial = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

/** Whether a process with this id exists (signal 0 only checks). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A port free on 127.0.0.1 right now. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** The value `read` gives once `accept` holds for it, read every 50 ms for up to 5 s; the last one then. */
async function poll<T>(read: () => Promise<T> | T, accept: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A node process that starts a server exactly as startRedis() does (the same command line, stdin and fd 3
 * piped), prints its pid and then waits to be killed.
 */
const OWNER = `
const { spawn } = require('node:child_process');
const { command, args } = JSON.parse(process.argv[1]);
const shell = spawn(command, args, { stdio: ['pipe', 'ignore', 'ignore', 'pipe'] });
shell.stdio[3].once('data', (pid) => process.stdout.write(String(pid).trim() + '\\n'));
setInterval(() => undefined, 60_000);
`;

redisDescribe(import.meta.url)('a real redis-server for the tests (startRedis)', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('listens on a free loopback port and answers PING, SET and GET', async () => {
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect(alive(server.pid)).toBe(true);
    const client = connect(server.url);
    try {
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      const key = `${uniquePrefix('harness')}greeting`;
      expect(await client.set(key, 'hello')).toBe('OK');
      expect(await client.get(key)).toBe('hello');
    } finally {
      client.disconnect();
    }
  });

  it('gives each test a key prefix of its own', () => {
    const a = uniquePrefix('create token');
    const b = uniquePrefix('create token');
    expect(a).toMatch(/^t:create-token:[0-9a-f]{8}:$/);
    expect(b).not.toBe(a);
  });

  it('flush() removes every key', async () => {
    const client = connect(server.url);
    try {
      await client.connect();
      const key = `${uniquePrefix('flush')}k`;
      await client.set(key, 'v');
      await client.select(3);
      await client.set(key, 'v3');
      await server.flush();
      expect(await client.get(key)).toBeNull();
      await client.select(0);
      expect(await client.get(key)).toBeNull();
    } finally {
      client.disconnect();
    }
  });

  it('restart() comes back on the same port, empty (nothing is persisted), as a new process', async () => {
    const { port, pid } = server;
    const key = `${uniquePrefix('restart')}k`;
    const before = connect(server.url);
    try {
      await before.connect();
      await before.set(key, 'kept?');
    } finally {
      before.disconnect();
    }
    await server.restart();
    expect(server.port).toBe(port);
    expect(server.url).toBe(`redis://127.0.0.1:${port}`);
    expect(server.pid).not.toBe(pid);
    expect(alive(pid)).toBe(false);
    const after = connect(server.url);
    try {
      await after.connect();
      expect(await after.ping()).toBe('PONG');
      expect(await after.get(key)).toBeNull();
    } finally {
      after.disconnect();
    }
  });

  it('stop() ends the process and the port refuses connections; a second stop() does nothing', async () => {
    const { port, pid } = server;
    expect(await dial(port)).toBe('connected');
    expect(await redisCommand(port, ['SET', 'stopped', 'no'])).toBe('+OK');
    await server.stop();
    expect(alive(pid)).toBe(false);
    // Refused; or, with test files in parallel, another test's new server on the freed port, without this one's data.
    expect(['ECONNREFUSED', '$-1']).toContain(await redisCommand(port, ['GET', 'stopped'], 500).catch((error: NodeJS.ErrnoException) => error.code ?? error.message));
    await server.stop();
  });

  it('leaves no server behind when the process that started it dies, even by SIGKILL', async () => {
    const port = await freePort();
    const owner = spawn(process.execPath, ['-e', OWNER, JSON.stringify(redisCommandLine(port))], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      owner.stdout.once('data', (line: Buffer) => resolve(Number.parseInt(line.toString('utf8'), 10)));
      owner.once('exit', (code) => reject(new Error(`the owner exited first (${String(code)})`)));
    });
    expect(await poll(() => redisCommand(port, ['PING'], 500).catch(() => 'no answer'), (reply) => reply === '+PONG')).toBe('+PONG');
    const mark = `owner-${pid}`;
    expect(await redisCommand(port, ['SET', 'owner', mark])).toBe('+OK');
    expect(alive(pid)).toBe(true);
    owner.kill('SIGKILL');
    expect(await poll(() => alive(pid), (up) => !up)).toBe(false);
    // Nothing of it answers on its port: refused, or (test files run in parallel, and a freed port is free to
    // take) another test's new server, which never holds the dead one's data.
    const after = await redisCommand(port, ['GET', 'owner'], 500).catch((error: NodeJS.ErrnoException) => error.code ?? error.message);
    expect(['ECONNREFUSED', '$-1']).toContain(after);
  });

  it('starts servers side by side on different ports', async () => {
    const [a, b] = await Promise.all([startRedis(), startRedis()]);
    try {
      expect(a.port).not.toBe(b.port);
      const client = connect(b.url);
      try {
        await client.connect();
        expect(await client.ping()).toBe('PONG');
      } finally {
        client.disconnect();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(alive(a.pid)).toBe(false);
    expect(alive(b.pid)).toBe(false);
  });
});

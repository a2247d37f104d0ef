/**
 * The "http (redis)" project's global set-up and tear-down: one real redis-server on a free loopback port for
 * the whole HTTP suite (each simulator takes a key prefix of its own: test/support/sim.ts), published as
 * JEST_REDIS_URL (not TOKEN_SIM_*: processes the tests start inherit it, and the CLI warns of every
 * TOKEN_SIM_ variable it does not know). jest.config.js adds the project only when redis-server can run, or under CI=true.
 */
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const ping = (port) =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(300, () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
  });

let server;

export async function setup() {
  const port = await freePort();
  server = spawn(process.env.REDIS_SERVER || 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--dir', tmpdir()], {
    stdio: 'ignore',
  });
  const until = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > until || server.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // The tear-down is loaded as a module of its own: it finds the server by this pid, not by a variable.
  server.unref();
  process.env.JEST_REDIS_URL = `redis://127.0.0.1:${port}`;
  process.env.JEST_REDIS_PID = String(server.pid);
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function teardown() {
  const pid = Number(process.env.JEST_REDIS_PID);
  if (!(pid > 0) || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const until = Date.now() + 5_000;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

export default setup;

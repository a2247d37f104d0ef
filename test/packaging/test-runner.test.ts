/** The Jest and Vitest global set-ups: one simulator per run, its URL in TOKEN_SIM_URL, users for one tenant per worker. */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import readyJestSetup from '../../src/runners/jest-global-setup.js';
import readyJestTeardown from '../../src/runners/jest-global-teardown.js';
import * as jestHelpers from '../../src/runners/jest.js';
import * as vitestHelpers from '../../src/runners/vitest.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const basic = (user: string, password = 'secret'): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The status of a token read: 401 when the user is unknown, 400 (not a token ref) once authenticated. */
async function statusAs(user: string): Promise<number> {
  const res = await fetch(`${process.env.TOKEN_SIM_URL}/tokens/none`, { headers: { Authorization: basic(user), Accept: TOKEN_TYPE } });
  return res.status;
}

const isDown = async (url: string): Promise<boolean> => fetch(`${url}/_sim/health`).then(() => false, () => true);

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.TOKEN_SIM_URL;
  delete process.env.TOKEN_SIM_URL;
});
afterEach(async () => {
  // A test that failed half-way leaves no simulator behind.
  const left = (globalThis as Record<symbol, { users: number } | undefined>)[Symbol.for('token-sim.test-runner')];
  if (left) {
    left.users = 1;
    await jestHelpers.globalTeardown();
  }
  if (saved === undefined) delete process.env.TOKEN_SIM_URL;
  else process.env.TOKEN_SIM_URL = saved;
});

describe('the Jest global set-up', () => {
  it('starts one simulator on a free loopback port, publishes TOKEN_SIM_URL, and the tear-down closes it and removes it', async () => {
    await readyJestSetup();
    const url = process.env.TOKEN_SIM_URL ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe('http://127.0.0.1:8080');
    expect(await (await fetch(`${url}/_sim/health`)).json()).toEqual({ status: 'ok', store: { kind: 'memory' } });
    await readyJestTeardown();
    expect(process.env.TOKEN_SIM_URL).toBeUndefined();
    expect(await isDown(url)).toBe(true);
  });

  it('adds the users worker-1 … worker-32 (password secret) by default, one tenant per worker', async () => {
    await readyJestSetup();
    try {
      expect(await statusAs('worker-1')).toBe(400);
      expect(await statusAs('worker-32')).toBe(400);
      expect(await statusAs('worker-33')).toBe(401);
      expect(await statusAs('merchant')).toBe(400);
    } finally {
      await readyJestTeardown();
    }
  });

  it('takes a simulator’s options and a number of workers from the factory', async () => {
    await jestHelpers.globalSetup({ users: ['file-1:secret'], workers: 2, now: '2030-01-01T00:00:00Z', frozen: true })();
    try {
      expect(await statusAs('file-1')).toBe(400);
      expect(await statusAs('worker-2')).toBe(400);
      expect(await statusAs('worker-3')).toBe(401);
      expect(await (await fetch(`${process.env.TOKEN_SIM_URL}/_sim/clock`)).json()).toEqual({ now: '2030-01-01T00:00:00Z', frozen: true });
    } finally {
      await jestHelpers.globalTeardown();
    }
  });

  it('refuses a number of workers that is not a whole number', async () => {
    await expect(jestHelpers.globalSetup({ workers: 1.5 })()).rejects.toThrow(RangeError);
    expect(process.env.TOKEN_SIM_URL).toBeUndefined();
  });

  it('uses a simulator whose TOKEN_SIM_URL is already set, starting none, and leaves it set', async () => {
    process.env.TOKEN_SIM_URL = 'http://127.0.0.1:9';
    await jestHelpers.globalSetup()();
    expect(process.env.TOKEN_SIM_URL).toBe('http://127.0.0.1:9');
    await jestHelpers.globalTeardown();
    expect(process.env.TOKEN_SIM_URL).toBe('http://127.0.0.1:9');
  });

  it('shares one simulator between two set-ups (two projects), closed by the last tear-down', async () => {
    await jestHelpers.globalSetup()();
    const url = process.env.TOKEN_SIM_URL ?? '';
    await jestHelpers.globalSetup()();
    expect(process.env.TOKEN_SIM_URL).toBe(url);
    await jestHelpers.globalTeardown();
    expect(await isDown(url)).toBe(false);
    await jestHelpers.globalTeardown();
    expect(await isDown(url)).toBe(true);
  });
});

describe('the Vitest global set-up', () => {
  it('publishes the URL through provide and TOKEN_SIM_URL, and answers its tear-down', async () => {
    const provided: [string, unknown][] = [];
    const teardown = await vitestHelpers.globalSetup({ users: ['file-1:secret'], workers: 0 })({ provide: (key, value) => provided.push([key, value]) });
    const url = process.env.TOKEN_SIM_URL ?? '';
    expect(provided).toEqual([['TOKEN_SIM_URL', url]]);
    expect(await statusAs('file-1')).toBe(400);
    expect(await statusAs('worker-1')).toBe(401);
    await teardown();
    expect(await isDown(url)).toBe(true);
    expect(process.env.TOKEN_SIM_URL).toBeUndefined();
  });

  it('has a ready setup and teardown, as `globalSetup: [\'token-sim/vitest\']` loads them', async () => {
    expect(Object.keys(vitestHelpers)).not.toContain('default');
    await vitestHelpers.setup();
    const url = process.env.TOKEN_SIM_URL ?? '';
    expect(await statusAs('worker-1')).toBe(400);
    await vitestHelpers.teardown();
    expect(await isDown(url)).toBe(true);
  });
});

describe('the set-ups over HTTPS (tls: true)', () => {
  it('publish an https TOKEN_SIM_URL and the CA in TOKEN_SIM_CA and NODE_EXTRA_CA_CERTS, which a worker started after trusts; the tear-down removes them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-runner-tls-'));
    const extra = process.env.NODE_EXTRA_CA_CERTS;
    delete process.env.NODE_EXTRA_CA_CERTS;
    try {
      await jestHelpers.globalSetup({ tls: true, tlsDir: dir })();
      const url = process.env.TOKEN_SIM_URL ?? '';
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(process.env.TOKEN_SIM_CA).toBe(join(dir, 'ca.pem'));
      expect(process.env.NODE_EXTRA_CA_CERTS).toBe(join(dir, 'ca.pem'));
      // A test worker is a process started after the set-up: its own fetch trusts the CA from the environment.
      // (Not spawnSync: the simulator answers on this process's event loop.)
      const worker = await promisify(execFile)(process.execPath, ['-e', "fetch(process.env.TOKEN_SIM_URL + '/_sim/health').then(async (r) => console.log(r.status, await r.text()))"], { encoding: 'utf8', env: process.env });
      expect(worker.stdout.trim()).toBe('200 {"status":"ok","store":{"kind":"memory"}}');
      await jestHelpers.globalTeardown();
      expect(process.env.TOKEN_SIM_URL).toBeUndefined();
      expect(process.env.TOKEN_SIM_CA).toBeUndefined();
      expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    } finally {
      if (extra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = extra;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leave a NODE_EXTRA_CA_CERTS of the user’s alone (TOKEN_SIM_CA names the CA)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-runner-tls-'));
    const extra = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ours.pem';
    try {
      const teardown = await vitestHelpers.globalSetup({ tls: true, tlsDir: dir })();
      expect(process.env.TOKEN_SIM_CA).toBe(join(dir, 'ca.pem'));
      expect(process.env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ours.pem');
      await teardown();
      expect(process.env.TOKEN_SIM_CA).toBeUndefined();
      expect(process.env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ours.pem');
    } finally {
      if (extra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = extra;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('workerTenant', () => {
  it.each([
    [{ JEST_WORKER_ID: '3' }, 'worker-3'],
    [{ VITEST_POOL_ID: '2' }, 'worker-2'],
    [{}, 'worker-1'],
  ])('names the tenant of a worker: %j is %s', (env, name) => {
    expect(jestHelpers.workerTenant(env)).toEqual({ name, password: 'secret', authorization: basic(name) });
    expect(vitestHelpers.workerTenant(env)).toEqual(jestHelpers.workerTenant(env));
  });

  it('lists the workers’ users', () => {
    expect(jestHelpers.workerUsers(2)).toEqual(['worker-1:secret', 'worker-2:secret']);
  });
});

/**
 * The shared control table against the real `token-sim` process (bin/token-sim.js on dist/), reached only
 * over HTTP with connectSimulator — as a test suite reaches a simulator in a container or a CI service.
 * One process serves the whole table; each case starts from a reset and cleared scenario sets.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { connectSimulator, type RemoteSimulator } from '../../src/index.js';
import { listening, run, type Run } from '../support/cli.js';
import { CONTROL_TABLE, TABLE_ARGS, TABLE_START } from '../support/control-table.js';

const ADMIN = 'table-admin-token';
let proc: Run;
let url: string;
let sim: RemoteSimulator;

beforeAll(async () => {
  proc = run(['--port', '0', '--admin-token', ADMIN, ...TABLE_ARGS]);
  url = await listening(proc);
  sim = connectSimulator(url, { adminToken: ADMIN });
  await sim.ready();
});

afterAll(async () => {
  proc.child.kill('SIGTERM');
  await proc.exited;
});

beforeEach(async () => {
  await sim.loadScenarios();
  for (const tenant of ['alice', 'bob', 'merchant']) await sim.tenant(tenant).loadScenarios();
  await sim.clock.set(TABLE_START, true);
  // A state import drops the tenants' forked clocks: every case starts on the shared clock.
  await sim.importState({ ...(await sim.exportState()), tenantClocks: {}, tokens: [] });
  await sim.reset();
});

describe('remote: connectSimulator to the token-sim process, with an admin token', () => {
  for (const entry of CONTROL_TABLE) it(entry.name, () => entry.run(sim, url));

  it('refuses a client without the admin token with the HTTP errorName', async () => {
    await expect(connectSimulator(url).clock.now()).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'accessDenied' });
  });
});

/**
 * The shared control table, in process (startSimulator and its tenant handles) and remote
 * (connectSimulator against the CLI started from the same flags).
 */
import { afterEach, describe, it } from '@jest/globals';
import { connectSimulator, startSimulator } from '../../src/index.js';
import { startCli } from '../support/cli-in-process.js';
import { CONTROL_TABLE, TABLE_ARGS, TABLE_OPTIONS } from '../support/control-table.js';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

describe('in process: startSimulator', () => {
  for (const entry of CONTROL_TABLE) {
    it(entry.name, async () => {
      const sim = await startSimulator(TABLE_OPTIONS);
      stops.push(() => sim.close());
      await entry.run(sim, sim.url);
    });
  }
});

describe('remote: connectSimulator to the CLI', () => {
  for (const entry of CONTROL_TABLE) {
    it(entry.name, async () => {
      const { run, url } = await startCli(['--port', '0', ...TABLE_ARGS]);
      stops.push(() => run.stop());
      const sim = connectSimulator(url);
      await sim.ready();
      await entry.run(sim, url);
    });
  }
});

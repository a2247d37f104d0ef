/**
 * Jest helpers (`token-sim/jest`): one simulator for the whole run, started by globalSetup in Jest's main
 * process and published as TOKEN_SIM_URL, which every worker inherits; globalTeardown closes it.
 *
 *   // jest.config.js: the ready pair
 *   globalSetup: 'token-sim/jest/global-setup', globalTeardown: 'token-sim/jest/global-teardown',
 *   // or, with options, a file of your own as globalSetup:
 *   module.exports = require('token-sim/jest').globalSetup({ users: ['file-1:secret'] });
 *
 * docs/test-runners.md has the recipe for one tenant per worker.
 */
import { startRun, type TestRunnerOptions } from './test-runner.js';

export { CA_VARIABLE, URL_VARIABLE, stopRun as globalTeardown, workerTenant, workerUsers, type TestRunnerOptions, type WorkerTenant } from './test-runner.js';

/** A Jest globalSetup function that starts the run's simulator with these options (port 0 unless given). */
export function globalSetup(options: TestRunnerOptions = {}): () => Promise<void> {
  return async () => {
    await startRun(options);
  };
}

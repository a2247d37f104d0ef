/**
 * Vitest helpers (`token-sim/vitest`): one simulator for the whole run, started by globalSetup in Vitest's
 * main process and published as TOKEN_SIM_URL, which the test workers inherit, and as `inject('TOKEN_SIM_URL')`.
 *
 *   // vitest.config.ts: the ready module
 *   test: { globalSetup: ['token-sim/vitest'] }
 *   // or, with options, a file of your own as globalSetup:
 *   export default globalSetup({ users: ['file-1:secret'] });
 *
 * docs/test-runners.md has the recipe for one tenant per worker.
 */
import { URL_VARIABLE, startRun, stopRun, type TestRunnerOptions } from './test-runner.js';

export { CA_VARIABLE, URL_VARIABLE, workerTenant, workerUsers, type TestRunnerOptions, type WorkerTenant } from './test-runner.js';

/** What Vitest hands a global set-up (its TestProject): only `provide` is used. */
export interface GlobalSetupContext {
  provide?: (key: string, value: unknown) => void;
}

/**
 * A Vitest global set-up (a default export) that starts the run's simulator with these options (port 0
 * unless given) and answers its tear-down.
 */
export function globalSetup(options: TestRunnerOptions = {}): (context?: GlobalSetupContext) => Promise<() => Promise<void>> {
  return async (context) => {
    const url = await startRun(options);
    context?.provide?.(URL_VARIABLE, url);
    return stopRun;
  };
}

/** The ready global set-up: `globalSetup: ['token-sim/vitest']` (default options). */
export async function setup(context?: GlobalSetupContext): Promise<void> {
  await globalSetup()(context);
}

/** The ready global tear-down. */
export async function teardown(): Promise<void> {
  await stopRun();
}

/** `globalSetup: 'token-sim/jest/global-setup'`: the run's simulator with the default options (decision 0020). */
import { startRun } from './test-runner.js';

export default async function globalSetup(): Promise<void> {
  await startRun({});
}

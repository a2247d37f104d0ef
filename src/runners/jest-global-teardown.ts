/** `globalTeardown: 'token-sim/jest/global-teardown'`: closes the simulator the global set-up started. */
import { stopRun } from './test-runner.js';

export default stopRun;

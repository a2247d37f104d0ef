/** `globalTeardown: 'token-sim/jest/global-teardown'`: closes the simulator the global set-up started. */
import { globalTeardown } from './jest.js';

export default globalTeardown;

/** `globalSetup: 'token-sim/jest/global-setup'`: the run's simulator with the default options (decision 0020). */
import { globalSetup } from './jest.js';

export default globalSetup();

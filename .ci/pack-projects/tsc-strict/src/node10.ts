// Old-style resolution (moduleResolution node10, what ts-jest's CommonJS default uses): main, types, typesVersions.
import { startSimulator, type RunningSimulator, type Scenario } from 'token-sim';
import { globalSetup } from 'token-sim/jest';
import jestGlobalSetup from 'token-sim/jest/global-setup';
import jestGlobalTeardown from 'token-sim/jest/global-teardown';
import { setup, teardown } from 'token-sim/vitest';

export const start: (options: { port: number }) => Promise<RunningSimulator> = startSimulator;
export const scenario: Scenario = { name: 'none' };
export const helpers = [globalSetup(), jestGlobalSetup, jestGlobalTeardown, setup, teardown];

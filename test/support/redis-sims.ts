/**
 * The "http (redis)" project closes, after each test file, the Redis connections of the simulators that
 * test/support/sim.ts made (a simulator that never listens has no server to close them).
 */
import { afterAll } from '@jest/globals';
import { openedSimulators } from './sim.js';

afterAll(async () => {
  await Promise.all(openedSimulators.splice(0).map(async (sim) => sim.replica?.close()));
});

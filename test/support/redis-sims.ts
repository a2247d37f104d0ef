/**
 * The "http (redis)" project closes, after each test file, the Redis connections of the simulators that
 * test/support/sim.ts made (a simulator that never listens has no server to close them).
 */
import { afterAll } from '@jest/globals';
import { closeSharedStore } from '../../src/simulator/compose.js';
import { openedSimulators } from './sim.js';

afterAll(async () => {
  await Promise.all(openedSimulators.splice(0).map((sim) => closeSharedStore(sim)));
});

/** token-sim's library API. */
import type { Express } from 'express';
import type { SimulatorOptions } from './config/options.js';
import { createSimulator } from './simulator/compose.js';

export { createSimulator } from './simulator/compose.js';
export type { SimulatorIo } from './simulator/compose.js';
export { SimulatorError } from './simulator/facade.js';
export type { Simulator, SimulatorClock } from './simulator/facade.js';
export { startSimulator } from './simulator/server.js';
export type { RunningSimulator } from './simulator/server.js';
export type { SimulatorOptions, Profile, LogFormat } from './config/options.js';
export type { Fixtures, FixtureToken } from './config/fixtures.js';
export type { JournalEntry, Operation } from './control/journal.js';
export type { StateSnapshot } from './control/state.js';

/** An Express app for supertest: no socket. */
export function createApp(options: SimulatorOptions = {}): Express {
  return createSimulator(options).app;
}

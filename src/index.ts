/** token-sim's library API. */
import type { Express } from 'express';
import type { SimulatorOptions } from './config/options.js';
import { createSimulator } from './simulator.js';

export { startSimulator, createSimulator, SimulatorError } from './simulator.js';
export type { Simulator, RunningSimulator, SimulatorClock, SimulatorIo } from './simulator.js';
export type { SimulatorOptions, Profile, LogFormat } from './config/options.js';
export type { Fixtures, FixtureToken } from './config/fixtures.js';
export type { JournalEntry, Operation } from './control/journal.js';
export type { StateSnapshot } from './control/state.js';

/** An Express app for supertest: no socket. */
export function createApp(options: SimulatorOptions = {}): Express {
  return createSimulator(options).app;
}

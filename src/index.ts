/** token-sim's library API. */
import type { Express } from 'express';
import type { SimulatorOptions } from './config/options.js';
import { createSimulator } from './simulator.js';

export { startSimulator, createSimulator } from './simulator.js';
export type { Simulator, RunningSimulator, SimulatorClock, SimulatorIo } from './simulator.js';
export type { SimulatorOptions, Profile, LogFormat } from './config/options.js';
export type { Fixtures } from './config/fixtures.js';

/** An Express app for supertest: no socket. */
export function createApp(options: SimulatorOptions = {}): Express {
  return createSimulator(options).app;
}

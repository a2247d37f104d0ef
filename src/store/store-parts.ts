/**
 * What a shared store reads of the rest of one simulator (StoreSet.bind). A module of its own: the Redis records
 * read it, and store-set.ts reaches them through the replica (no import circle).
 */
import type { TenantClocks } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioEngine } from '../scenarios/engine.js';

/** What a shared store reads and writes of the rest of one simulator, given once that exists. */
export interface StoreParts {
  clocks: TenantClocks;
  ids: IdSource;
  engine: ScenarioEngine;
  scenarios: ActiveScenarios;
  siv: Siv;
  /** Puts this process's memory back to the configured start (a Redis that lost its state). */
  restart(): void;
  /** Counts a lost store (`token_sim_store_resets_total`). */
  countReset(): void;
  /** Where the line that says so goes (stderr). */
  writeErr(line: string): void;
}

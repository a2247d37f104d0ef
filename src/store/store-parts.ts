/** What a shared store reads and writes of the rest of one simulator (store-set.ts's StoreSet is what it gives back). */
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

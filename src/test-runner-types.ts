/** The shapes of the Jest and Vitest helpers' options and tenants (test-runner.ts), which index.ts publishes too. */
import type { SimulatorOptions } from './config/options.js';

/** The options of the Jest and Vitest global set-ups: a simulator's options, and users for one tenant per worker. */
export interface TestRunnerOptions extends SimulatorOptions {
  /**
   * Adds the users `worker-1` … `worker-<workers>`, password `secret`: one tenant per test worker (Jest's
   * JEST_WORKER_ID, Vitest's VITEST_POOL_ID). Default 32; 0 adds none.
   */
  workers?: number;
}

/** This worker's tenant: `worker-<JEST_WORKER_ID or VITEST_POOL_ID>`, and its Basic credentials. */
export interface WorkerTenant {
  name: string;
  password: string;
  /** `Basic …`, for the Authorization header. */
  authorization: string;
}

/** What the Jest and Vitest helpers share: the run's one simulator, published as TOKEN_SIM_URL (decision 0020). */
import { startSimulator } from '../index.js';
import type { TestRunnerOptions, WorkerTenant } from '../test-runner-types.js';

export type { TestRunnerOptions, WorkerTenant } from '../test-runner-types.js';

export const URL_VARIABLE = 'TOKEN_SIM_URL';
/** With `tls`: the local CA's certificate file, also given to NODE_EXTRA_CA_CERTS (when unset) so that workers' fetch trusts it. */
export const CA_VARIABLE = 'TOKEN_SIM_CA';
export const WORKER_PASSWORD = 'secret';
const DEFAULT_WORKERS = 32;

/** On globalThis: set-up and tear-down may be two module instances (ESM, CommonJS); `users`: the set-ups sharing it. */
interface RunState {
  sim: { readonly url: string; readonly caFile: string | undefined; close(): Promise<void> };
  set: string[];
  users: number;
}
const STATE = Symbol.for('token-sim.test-runner');
const registry = globalThis as typeof globalThis & { [STATE]?: RunState };

/** `worker-1` … `worker-<n>` with the workers' password. */
export function workerUsers(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `worker-${i + 1}:${WORKER_PASSWORD}`);
}

/**
 * Starts the run's simulator (or joins the one already started by this process) and publishes its URL.
 * When TOKEN_SIM_URL is already set by someone else, that simulator is used and nothing is started.
 */
export async function startRun(options: TestRunnerOptions = {}): Promise<string> {
  const running = registry[STATE];
  if (running) {
    running.users++;
    process.env[URL_VARIABLE] = running.sim.url;
    return running.sim.url;
  }
  const given = process.env[URL_VARIABLE];
  if (given !== undefined && given !== '') return given;
  const { workers = DEFAULT_WORKERS, ...simulatorOptions } = options;
  if (!Number.isInteger(workers) || workers < 0) throw new RangeError(`workers must be a whole number, got '${String(workers)}'`);
  const sim = await startSimulator({
    port: 0,
    ...simulatorOptions,
    users: [...workerUsers(workers), ...(simulatorOptions.users ?? [])],
  });
  const set = [URL_VARIABLE];
  process.env[URL_VARIABLE] = sim.url;
  if (sim.caFile !== undefined) {
    // Workers start after this, and Node reads NODE_EXTRA_CA_CERTS when a process starts.
    set.push(CA_VARIABLE);
    process.env[CA_VARIABLE] = sim.caFile;
    if (process.env.NODE_EXTRA_CA_CERTS === undefined) {
      set.push('NODE_EXTRA_CA_CERTS');
      process.env.NODE_EXTRA_CA_CERTS = sim.caFile;
    }
  }
  registry[STATE] = { sim, users: 1, set };
  return sim.url;
}

/** Closes the run's simulator once its last set-up is torn down; does nothing for a simulator it did not start. */
export async function stopRun(): Promise<void> {
  const running = registry[STATE];
  if (!running) return;
  running.users--;
  if (running.users > 0) return;
  delete registry[STATE];
  if (process.env[URL_VARIABLE] === running.sim.url) for (const name of running.set) delete process.env[name];
  await running.sim.close();
}

/** This worker's tenant, from JEST_WORKER_ID or VITEST_POOL_ID (1 outside a worker). */
export function workerTenant(env: Record<string, string | undefined> = process.env): WorkerTenant {
  const id = env.JEST_WORKER_ID ?? env.VITEST_POOL_ID ?? '1';
  const name = `worker-${id}`;
  return { name, password: WORKER_PASSWORD, authorization: `Basic ${Buffer.from(`${name}:${WORKER_PASSWORD}`).toString('base64')}` };
}

// An ES module that uses token-sim's public types, compiled with strict and skipLibCheck: false in a project
// that installs only token-sim and typescript (no @types/node, no DOM lib), then run by node.
import { ConfigError, ScenarioFileError, SimulatorError, connectSimulator, createApp, createSimulator, startSimulator } from 'token-sim';
import type {
  ControlToken,
  ErrorBody,
  Fixtures,
  FixtureToken,
  HttpHandler,
  JournalEntry,
  JournalFilter,
  Profile,
  RemoteSimulator,
  Rule,
  RunningSimulator,
  Scenario,
  Simulator,
  SimulatorOptions,
  StateSnapshot,
} from 'token-sim';
import { globalSetup, globalTeardown, workerTenant, type TestRunnerOptions } from 'token-sim/jest';
import jestGlobalSetup from 'token-sim/jest/global-setup';
import jestGlobalTeardown from 'token-sim/jest/global-teardown';
import * as vitest from 'token-sim/vitest';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`failed: ${what}`);
}

const rule: Rule = { when: { operation: 'createToken' }, then: { error: { status: 503, errorName: 'serviceUnavailable', message: 'down' } } };
const outage: Scenario = { name: 'outage', rules: [rule] };
const token: FixtureToken = {
  paymentInstrument: { type: 'card/front', cardHolderName: 'Ada', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
  merchant: { entity: 'default' },
};
const fixtures: Fixtures = {
  credentials: [{ username: 'merchant', password: 'secret', entities: ['default'] }],
  entities: { default: { currencies: ['GBP'], networks: ['VISA'] } },
  bins: [{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }],
  tokens: [token],
};
const options: SimulatorOptions = { port: 0, seed: 'tsc', now: '2030-01-01T00:00:00Z', frozen: true, fixtures, scenarios: [outage] };

const sim: RunningSimulator = await startSimulator(options);
// Internals are not on the public interface.
// @ts-expect-error vault is internal
check(sim.vault === undefined, 'no vault');
// @ts-expect-error heldSockets is internal
check(sim.heldSockets === undefined, 'no heldSockets');
// @ts-expect-error config is internal
check(sim.config === undefined, 'no config');

const handler: HttpHandler = sim.app;
check(typeof handler === 'function' && typeof createApp() === 'function', 'handlers are functions');
check(sim.clock.advance('P1D') === '2030-01-02T00:00:00Z', 'clock');
const snapshot: StateSnapshot = sim.exportState();
check(snapshot.format === 'token-sim-state' && snapshot.tokens.length === 1, 'snapshot');
const tokens: ControlToken[] = sim.tokens();
check(tokens[0]?.tenant === 'merchant', 'tokens');
const journal: JournalEntry[] = sim.requests({ operation: 'createToken' } satisfies JournalFilter);
check(journal.length === 0, 'journal');

try {
  sim.importState({ format: 'nope' });
  check(false, 'importState refuses');
} catch (err) {
  check(err instanceof SimulatorError, 'a SimulatorError');
  if (err instanceof SimulatorError) {
    const body: ErrorBody = err.details;
    check(err.errorName === 'bodyDoesNotMatchSchema' && body.validationErrors !== undefined, 'error body');
  }
}
try {
  createSimulator({ profile: 'beta' as unknown as Profile });
  check(false, 'bad options refused');
} catch (err) {
  check(err instanceof ConfigError && !(err instanceof ScenarioFileError), 'a ConfigError');
}

const remote: RemoteSimulator = connectSimulator(sim.url);
const me = remote.tenant('merchant');
await me.loadScenarios(outage);
check((await me.scenarios()).length === 1, 'remote tenant scenarios');
check((await me.clock.advance('P8D')) === '2030-01-10T00:00:00Z', 'remote tenant clock');
const entries: JournalEntry[] = await me.requests({ operation: 'createToken' });
check(entries.length === 0, 'remote journal');
await sim.close();

const inProcess: Simulator = createSimulator();
check(inProcess.scenarios().length === 0, 'createSimulator');

// The test-runner helpers: their types, and that each is a function.
const runnerOptions: TestRunnerOptions = { workers: 2, users: ['extra:secret'] };
check(typeof globalSetup(runnerOptions) === 'function' && typeof globalTeardown === 'function', 'jest helpers');
check(typeof jestGlobalSetup === 'function' && typeof jestGlobalTeardown === 'function', 'jest ready modules');
check(typeof vitest.setup === 'function' && typeof vitest.teardown === 'function' && typeof vitest.globalSetup({}) === 'function', 'vitest helpers');
check(workerTenant({ JEST_WORKER_ID: '3' }).name === 'worker-3', 'workerTenant');

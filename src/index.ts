/**
 * token-sim's library API: what `import … from 'token-sim'` and `require('token-sim')` give. Every export is
 * typed with src/public-types.ts, so the published declarations import nothing else (decision 0019); the
 * functions below hand out simulators without their internals (vault, held sockets, resolved configuration).
 */
import { ConfigError as ConfigErrorClass } from './config/fixtures.js';
import { ScenarioFileError as ScenarioFileErrorClass } from './scenarios/loader.js';
import { createSimulator as composeSimulator } from './simulator/compose.js';
import { SimulatorError as SimulatorErrorClass } from './simulator/facade.js';
import { connectSimulator as connectRemote } from './simulator/remote.js';
import { startSimulator as startServer } from './simulator/server.js';
import type {
  ConfigErrorConstructor,
  ConnectOptions,
  HttpHandler,
  RemoteSimulator,
  RunningSimulator,
  ConfigError as ConfigErrorInstance,
  ScenarioFileError as ScenarioFileErrorInstance,
  ScenarioFileErrorConstructor,
  Simulator,
  SimulatorError as SimulatorErrorInstance,
  SimulatorErrorConstructor,
  SimulatorIo,
  SimulatorOptions,
} from './public-types.js';

export type * from './public-types.js';

// Each error is a class (for instanceof) and a type of the same name.
export type SimulatorError = SimulatorErrorInstance;
export type ConfigError = ConfigErrorInstance;
export type ScenarioFileError = ScenarioFileErrorInstance;
/** A refusal by a library call: `errorName`, `details` (the HTTP error body) and a message naming the first problem. */
export const SimulatorError: SimulatorErrorConstructor = SimulatorErrorClass;
/** Bad options or fixtures given to `createSimulator` / `startSimulator`. */
export const ConfigError: ConfigErrorConstructor = ConfigErrorClass;
/** A scenario file that cannot be read or is invalid (a ConfigError), with `problems: [{jsonPath, message}]`. */
export const ScenarioFileError: ScenarioFileErrorConstructor = ScenarioFileErrorClass;

/** The public members of a simulator, one by one: its internals (vault, held sockets, configuration) stay behind. */
function publicView(sim: ReturnType<typeof composeSimulator>): Simulator {
  return {
    app: sim.app,
    listener: sim.listener,
    clock: sim.clock,
    requests: (query) => sim.requests(query),
    clearRequests: (tenant) => sim.clearRequests(tenant),
    reset: (tenant) => sim.reset(tenant),
    tokens: (tenant) => sim.tokens(tenant),
    payments: (tenant) => sim.payments(tenant),
    exportState: () => sim.exportState(),
    importState: (state) => sim.importState(state),
    loadScenarios: (...scenarios) => sim.loadScenarios(...scenarios),
    scenarios: () => sim.scenarios(),
    webhooks: (query) => sim.webhooks(query),
    flushWebhooks: (options) => sim.flushWebhooks(options),
    tenant: (name) => sim.tenant(name),
  };
}

/** A simulator in this process, without a socket: drive `sim.app` (supertest) or `sim.listener` yourself. */
export function createSimulator(options?: SimulatorOptions, io?: SimulatorIo): Simulator {
  return publicView(composeSimulator(options, io));
}

/** Starts a simulator on `options.port` (`0`: a free one) and resolves once it listens. */
export async function startSimulator(options?: SimulatorOptions, io?: SimulatorIo): Promise<RunningSimulator> {
  const running = await startServer(options, io);
  return { ...publicView(running), url: running.url, server: running.server, close: () => running.close() };
}

/** Every route of a simulator (the API and /_sim) as one request handler, for supertest: no socket. */
export function createApp(options: SimulatorOptions = {}): HttpHandler {
  return createSimulator(options).app;
}

/** The control surface of a simulator running elsewhere (CLI, container, CI service), over its /_sim API. */
export function connectSimulator(url: string, options?: ConnectOptions): RemoteSimulator {
  return connectRemote(url, options);
}

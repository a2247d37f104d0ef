/**
 * token-sim's library API: what `import … from 'token-sim'` and `require('token-sim')` give. The published
 * declarations are generated from these exports (scripts/build-types.mjs, decision 0047) and import nothing;
 * the functions below hand out simulators without their internals (vault, held sockets, resolved configuration).
 */
import type { ConfigError } from './config/fixtures.js';
import type { SimulatorOptions } from './config/options.js';
import type { ScenarioFileError } from './scenarios/loader.js';
import { createSimulator as composeSimulator } from './simulator/compose.js';
import type { SimulatorIo } from './simulator/core.js';
import { LIBRARY_METHODS, type HttpHandler, type RunningSimulator, type Simulator, type SimulatorError } from './simulator/facade.js';
import { connectSimulator as connectRemote, type ConnectOptions, type RemoteSimulator } from './simulator/remote.js';
import { startSimulator as startServer } from './simulator/server.js';
import { record as startRecording } from './verify/recorder.js';
import { verify as replay } from './simulator/replay.js';
import type { RecordOptions, Recording, VerifyOptions, VerifyReport } from './verify/types.js';

export { ConfigError, type BinRange, type EntityConfig, type FixtureCredential, type Fixtures, type FixtureToken } from './config/fixtures.js';
export type { LogFormat, Profile, SimulatorOptions } from './config/options.js';
export type { JournalFilter } from './control/journal.js';
export type { JournalEntry, Operation } from './control/journal-entry.js';
export type { ClockState, ExpiryDate, PaymentEventState, PaymentEventType, PaymentState, RuleCounts, StateSnapshot, TokenState } from './control/snapshot-types.js';
export type { ErrorBody } from './http/errors.js';
export type { ControlPayment, ControlTenant } from './http/admin/handlers.js';
export type { MagicAmount, MagicCard, MagicName, MagicPostalCode, MagicRiskFactor, MagicValues } from './http/admin/magic-values.js';
export type { ControlToken, TokenResource } from './http/openapi-schemas.js';
export type { WebhookDelivery, WebhookFlush, WebhookResend, WebhookState } from './infra/webhook-types.js';
export { ScenarioFileError, type FileProblem } from './scenarios/loader.js';
export type { RiskFactor, Rule, RuleThen, RuleWhen, Scenario, ScenarioOperation } from './scenarios/schema.js';
export type { SimulatorIo } from './simulator/core.js';
export type { FlushOptions, RequestQuery, WebhookFilter, WebhookQuery } from './simulator/library.js';
export {
  SimulatorError,
  type HttpHandler,
  type ListeningServer,
  type RunningSimulator,
  type Simulator,
  type SimulatorClock,
  type SimulatorControl,
  type SimulatorTenant,
  type TenantClock,
} from './simulator/facade.js';
export type { ConnectOptions, RemoteClock, RemoteSimulator, RemoteTenant, RemoteTenantClock } from './simulator/remote.js';
export type { TestRunnerOptions, WorkerTenant } from './test-runner-types.js';
export type { ApiOperation, BillingAddress, CreateTokenBody } from './wire/schemas.js';
export type { Difference, DifferenceKind, RecordOptions, Recording, VerifyOptions, VerifyReport } from './verify/types.js';

export type SimulatorErrorConstructor = typeof SimulatorError;
export type ConfigErrorConstructor = typeof ConfigError;
export type ScenarioFileErrorConstructor = typeof ScenarioFileError;

/** A simulator's public members: its listener and its control surface (the control table's library methods); its internals (vault, held sockets, configuration) stay behind. */
const PUBLIC_MEMBERS = new Set(['app', 'listener', 'clock', 'tenant', ...Object.keys(LIBRARY_METHODS)]);

function publicView(sim: ReturnType<typeof composeSimulator>): Simulator {
  return Object.fromEntries(Object.entries(sim).filter(([key]) => PUBLIC_MEMBERS.has(key))) as unknown as Simulator;
}

/** A simulator in this process, without a socket: drive `sim.app` (supertest) or `sim.listener` yourself. */
export function createSimulator(options?: SimulatorOptions, io?: SimulatorIo): Simulator {
  return publicView(composeSimulator(options, io));
}

/** Starts a simulator on `options.port` (`0`: a free one) and resolves once it listens. */
export async function startSimulator(options?: SimulatorOptions, io?: SimulatorIo): Promise<RunningSimulator> {
  const running = await startServer(options, io);
  return { ...publicView(running), url: running.url, server: running.server, caFile: running.caFile, close: () => running.close() };
}

/** Every route of a simulator (the API and /_sim) as one request handler, for supertest: no socket. */
export function createApp(options: SimulatorOptions = {}): HttpHandler {
  return createSimulator(options).app;
}

/** The control surface of a simulator running elsewhere (CLI, container, CI service), over its /_sim API. */
export function connectSimulator(url: string, options?: ConnectOptions): RemoteSimulator {
  return connectRemote(url, options);
}

/** A recording proxy in front of `options.upstream`, writing each exchange, redacted, to `options.out` (docs/verify.md). */
export async function record(options: RecordOptions): Promise<Recording> {
  return startRecording(options);
}

/** Replays a recording against a fresh simulator started with `options.options`; resolves with every difference (docs/verify.md). */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  return replay(options);
}

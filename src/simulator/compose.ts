/** The composition root: the only place that picks implementations and wires one simulator's parts and its two HTTP surfaces. */
import type { Socket } from 'node:net';
import { ConfigError } from '../config/fixtures.js';
import { resolveConfig, type SimulatorConfig, type SimulatorOptions } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import { createController } from '../control/controller.js';
import { createMetrics, type Metrics } from '../control/metrics.js';
import type { CallParts } from '../http/admin/context.js';
import { magicValuesOf } from '../http/admin/magic-values.js';
import { Api, createListener } from '../http/api.js';
import { buildApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import { Correlation, createRequestLogger } from '../http/exchange.js';
import { Guard } from '../http/guard.js';
import { STREAM_LIMITS, StreamHub } from '../http/journal-stream.js';
import { mediaTypesFor } from '../http/media.js';
import { openApiDocument } from '../http/openapi.js';
import { ReadCache } from '../http/present.js';
import type { PemPair } from '../infra/certificates.js';
import type { IdSource } from '../infra/ids.js';
import { BoundedMap } from '../infra/bounded-map.js';
import { problemOfRefusal } from '../scenarios/active-set.js';
import { resolveScenarios } from '../scenarios/loader.js';
import { maskCardText } from '../wire/mask.js';
import { createStateSaver, restoreStateFile } from './state-file.js';
import { createCore, stderrIo, type Core, type SimulatorIo } from './core.js';
import { SimulatorError, controlFacade, type Simulator } from './facade.js';

/** Creates the fixtures' tokens (of one tenant, or all); `strict` turns a refusal into a ConfigError. */
function preloadFixtureTokens(core: Core, tenant: string | undefined, strict: boolean): void {
  (core.config.fixtures.tokens ?? []).forEach((t, i) => {
    const username = t.username ?? core.defaultUser;
    if (tenant !== undefined && username !== tenant) return;
    try {
      core.createPreloaded(t, username);
    } catch (err) {
      const problem = problemOfRefusal(err);
      if (!problem) throw err;
      if (strict) throw new ConfigError(`fixtures token $.tokens[${i}] is refused: ${new SimulatorError(err).errorName} (${problem.message})`);
    }
  });
}

function loadScenarios(core: Core, scenarios: SimulatorOptions['scenarios']): void {
  if (!scenarios || scenarios.length === 0) return;
  try {
    core.scenarios.load(resolveScenarios(scenarios));
  } catch (err) {
    if (!problemOfRefusal(err)) throw err;
    throw new ConfigError(`invalid scenarios: ${new SimulatorError(err).message}`);
  }
}

/** The parts /_sim and the library run their calls on: one catalogue of magic values for both (decision 0057). */
function createControl(core: Core): CallParts {
  const { config, stores, scenarios } = core;
  const hub = new StreamHub(stores.journal, STREAM_LIMITS);
  const controller = createController({
    ...core,
    store: stores.tokens,
    journal: stores.journal,
    // After a reset the clock may have passed a fixture's fixed expiry: such a token is simply not restored.
    preload: (tenant) => {
      preloadFixtureTokens(core, tenant, false);
      scenarios.preload(tenant);
    },
    clearWebhooks: (tenant) => stores.clearWebhooks(tenant),
    payments: { store: stores.payments, catchUp: (tenant) => core.payments.catchUp(tenant) },
    releaseWebhooks: (tenant) => stores.releaseWebhooks(tenant, core.clocks.now(tenant)),
    afterReset: (tenant) => stores.afterReset(tenant),
  });
  return {
    ...core,
    controller,
    magicValues: (tenant) => magicValuesOf({ bins: config.fixtures.bins, scenarios: (t) => controller.scenarios(t) }, tenant),
    tenants: () => [...config.credentials.keys()],
    paymentStore: stores.payments,
    journal: stores.journal,
    hub,
  };
}

/** The request log, the unexpected-error report, authentication and the Host guard, shared by both apps. */
function createEdges(config: SimulatorConfig, io: SimulatorIo, ids: IdSource) {
  const correlation = new Correlation(config.vendor, ids);
  const log = createRequestLogger({ format: config.log, write: io.writeErr, color: io.color ?? io.isTTY === true });
  // A bug's message may quote the request: card data in it is masked, as in every other line of the log.
  const reportUnexpected = (err: unknown): void =>
    io.writeErr(maskCardText(`token-sim: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
  const passwords = new Map([...config.credentials].map(([name, credential]) => [name, credential.password]));
  // One Basic check for the API and a tenant's own control plane (/_sim, decision 0026).
  const authenticate = createAuthenticator(passwords);
  const fallbackHost = `${config.host}:${config.port}`;
  const guard = new Guard(config);
  return { correlation, log, reportUnexpected, authenticate, fallbackHost, guard };
}

type Edges = ReturnType<typeof createEdges>;

function createSimulatedApi(core: Core, edges: Edges, metrics: Metrics, heldSockets: Set<Socket>) {
  const { config, paymentRefs, stores } = core;
  return new Api({
    ...edges,
    operations: {
      ...core,
      media: mediaTypesFor(config.vendor),
      reads: new ReadCache(),
      existing: new ReadCache(),
      mayDetokenize: (tenant) => config.credentials.get(tenant)?.detokenize === true,
      origins: new BoundedMap(64),
    },
    baseUrl: config.baseUrl,
    scenario: {
      engine: core.engine,
      paymentOf(tenant, text) {
        const ref = paymentRefs.decode(text);
        return ref && ref.tenant === tenant ? stores.payments.get(tenant, ref.tokenId) : undefined;
      },
    },
    journal: stores.journal,
    metrics,
    clock: core.clocks,
    heldSockets,
    ...(stores.replica && { gate: stores.replica }),
  });
}

export function createSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo) {
  const config = resolveConfig(options);
  const core = createCore(config);
  const { stores } = core;
  const metrics = createMetrics({ tokens: () => stores.tokens.size(), payments: () => stores.payments.size(), journal: () => stores.journal.size() });
  preloadFixtureTokens(core, undefined, true);
  loadScenarios(core, options.scenarios);
  const heldSockets = new Set<Socket>();
  const control = createControl(core);
  const { controller } = control;
  if (config.stateFile !== undefined) restoreStateFile(config.stateFile, controller);
  stores.bind({
    ...core,
    restart: () => controller.reset(),
    countReset: () => metrics.storeReset(),
    writeErr: io.writeErr,
  });
  const edges = createEdges(config, io, core.ids);
  const api = createSimulatedApi(core, edges, metrics, heldSockets);
  const controlApp = buildApp({
    ...control,
    ...edges,
    baseUrl: config.baseUrl,
    adminToken: config.adminToken,
    stateLimit: config.stateLimit,
    openApi: (baseUrl) => openApiDocument({ vendor: config.vendor, baseUrl, version: packageVersion() }),
    metrics,
    storeHealth: () => stores.health(),
    ...(stores.replica && { shared: stores.replica }),
  });
  // One listener for every request: the API straight through its pipeline, /_sim to the control app (decision 0046).
  const listener = createListener(api, edges.guard, controlApp);
  const sim = {
    app: listener,
    listener,
    config,
    vault: core.vault,
    ...controlFacade({ ...control, baseUrl: core.baseUrl }),
    heldSockets,
    sweepExpired: () => controller.sweepExpired(),
    storedTokens: () => stores.tokens.size(),
    webhookDispatcher: core.webhooks,
    // What startSimulator needs besides; src/index.ts hands out only the public members.
    listening: core.listening,
    webhookClient: (client: PemPair) => core.webhookSender.present(client),
    journalHub: control.hub,
    replica: stores.replica,
    stateSaver: config.stateFile === undefined ? undefined : createStateSaver(config.stateFile, config.stateIntervalMs, controller, io.writeErr),
  };
  return sim satisfies Simulator;
}

/** What the composition root hands the server, the CLI and tests besides: kept off the library's surface (src/index.ts). */
export type ComposedSimulator = ReturnType<typeof createSimulator>;

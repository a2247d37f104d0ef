/** The composition root: builds one simulator's dependencies once, and starts or stops its server. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { ConfigError } from './config/fixtures.js';
import { createMerchants } from './config/merchants.js';
import { resolveConfig, toEpochMs, type SimulatorConfig, type SimulatorOptions } from './config/options.js';
import { createController, type Controller } from './control/controller.js';
import { createJournal, type JournalEntry } from './control/journal.js';
import type { StateSnapshot } from './control/state.js';
import { createBinTable } from './domain/card.js';
import { advanceMs } from './domain/duration.js';
import { VaultError } from './domain/errors.js';
import { createSales } from './domain/sale.js';
import { createVault, type Vault } from './domain/vault.js';
import { buildApp } from './http/app.js';
import { errorBody } from './http/errors.js';
import { toCreateInput } from './http/schemas.js';
import { createTenantClocks, createVirtualClock } from './infra/clock.js';
import { createIdSource } from './infra/ids.js';
import { createMemoryStore } from './infra/memory-store.js';
import { createRefCodec } from './infra/refs.js';
import { createSecrets } from './infra/secrets.js';
import { createSiv } from './infra/siv.js';
import { createActiveScenarios } from './scenarios/active-set.js';
import { createScenarioEngine } from './scenarios/engine.js';
import { resolveScenarios } from './scenarios/loader.js';
import type { Scenario } from './scenarios/schema.js';
import type { FixtureToken } from './config/fixtures.js';

const CONFLICT_WINDOW_MS = 30 * 60 * 1000;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
const NAMESPACE_LIMIT = 16;

export interface SimulatorClock {
  /** The virtual now (of the tenant, when named) as an ISO 8601 string. */
  now(tenant?: string): string;
  /** Moves forward by an ISO 8601 duration (`P8D`) or milliseconds: the shared clock, or the tenant's own. */
  advance(by: string | number, tenant?: string): string;
  /** Sets the time; `frozen` switches between frozen and following real time. */
  set(now: string | number | Date, frozen?: boolean, tenant?: string): string;
}

export interface Simulator {
  readonly app: Express;
  readonly config: SimulatorConfig;
  readonly vault: Vault;
  readonly clock: SimulatorClock;
  /** The request journal (one tenant's, or every tenant's), oldest first. */
  requests(tenant?: string): JournalEntry[];
  clearRequests(tenant?: string): void;
  /** Deletes tokens and journal (one tenant's, or all), then preloads configured tokens again. */
  reset(tenant?: string): void;
  exportState(): StateSnapshot;
  /** Replaces the whole state; throws (changing nothing) when the snapshot is not valid. */
  importState(state: unknown): void;
  /** Replaces the active scenario set with these files and scenario objects (none: clears it). */
  loadScenarios(...scenarios: (string | object)[]): void;
  /** The active scenarios. */
  scenarios(): readonly Scenario[];
  /** Sockets held open by `noResponse` faults (closed at shutdown). */
  readonly heldSockets: ReadonlySet<Socket>;
}

export interface SimulatorIo {
  /** Where request logs and unexpected errors go (stderr for the CLI). */
  writeErr: (line: string) => void;
  /** Whether that is a terminal (the pretty log is coloured only there). */
  isTTY?: boolean;
}

const stderrIo: SimulatorIo = { writeErr: (line) => void process.stderr.write(`${line}\n`), isTTY: process.stderr.isTTY };

/** The library's errors carry the same name and message as the HTTP error body. */
export class SimulatorError extends Error {
  readonly errorName: string;
  readonly details: ReturnType<typeof errorBody>;
  constructor(error: VaultError) {
    const body = errorBody(error);
    const firstProblem = body.validationErrors?.[0];
    super(firstProblem ? `${error.message}: ${firstProblem.jsonPath ?? ''} ${firstProblem.message}`.trim() : error.message);
    this.name = 'SimulatorError';
    this.errorName = error.code;
    this.details = body;
  }
}

function libraryCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof VaultError ? new SimulatorError(err) : err;
  }
}

function clockFacade(controller: Controller): SimulatorClock {
  return {
    now: (tenant) => controller.clock(tenant).now,
    advance(by, tenant) {
      const ms = advanceMs(by, Date.parse(controller.clock(tenant).now));
      if (ms === undefined) throw new RangeError(`advance takes a non-negative ISO 8601 duration or milliseconds, got '${String(by)}'`);
      return controller.advanceClock(ms, tenant).now;
    },
    set(now, frozen, tenant) {
      const ms = toEpochMs(now);
      if (ms === undefined) throw new RangeError(`set takes an ISO 8601 date-time, got '${String(now)}'`);
      return controller.setClock(ms, frozen, tenant).now;
    },
  };
}

export function createSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): Simulator {
  const config = resolveConfig(options);
  const secrets = createSecrets(config.seed);
  const clocks = createTenantClocks(
    createVirtualClock({ frozen: config.frozen, ...(config.start !== undefined && { start: config.start }) }),
  );
  const ids = createIdSource(secrets.keyObject('ids'));
  const refs = createRefCodec(secrets, config.credentials.keys());
  const store = createMemoryStore();
  const journal = createJournal(config.journalSize);
  const merchants = createMerchants(config);
  const binTable = createBinTable(config.fixtures.bins);
  const policy = {
    lifetime: config.lifetime,
    extension: config.extension,
    conflictWindowMs: CONFLICT_WINDOW_MS,
    namespaceLimit: NAMESPACE_LIMIT,
  };
  const vault = createVault({ clock: clocks, ids, store, binTable, policy, merchants });
  const sales = createSales({ clock: clocks, ids, vault, merchants, binTable });

  const defaultUser = config.fixtures.credentials[0]?.username ?? 'merchant';
  const createPreloaded = (t: FixtureToken, username: string): void => {
    vault.create(username, { ...toCreateInput(t), ...(t.tokenId !== undefined && { tokenId: t.tokenId }) });
  };
  /** Creates the fixtures' tokens (of one tenant, or all); `strict` turns a refusal into a ConfigError. */
  function preloadFixtureTokens(tenant: string | undefined, strict: boolean): void {
    (config.fixtures.tokens ?? []).forEach((t, i) => {
      const username = t.username ?? defaultUser;
      if (tenant !== undefined && username !== tenant) return;
      try {
        createPreloaded(t, username);
      } catch (err) {
        if (!strict || !(err instanceof VaultError)) throw err;
        const problem = err.details.validationErrors?.[0];
        throw new ConfigError(`fixtures token $.tokens[${i}] is refused: ${err.code}${problem ? ` (${problem.message})` : ` (${err.message})`}`);
      }
    });
  }
  preloadFixtureTokens(undefined, true);

  const engine = createScenarioEngine();
  const activeScenarios = createActiveScenarios({ engine, config, policy, merchants, defaultUser, createToken: createPreloaded, now: (t) => clocks.now(t) });
  if (options.scenarios && options.scenarios.length > 0) {
    try {
      activeScenarios.load(resolveScenarios(options.scenarios));
    } catch (err) {
      if (!(err instanceof VaultError)) throw err;
      throw new ConfigError(`invalid scenarios: ${new SimulatorError(err).message}`);
    }
  }
  const heldSockets = new Set<Socket>();

  const controller = createController({
    clocks,
    store,
    journal,
    ids,
    siv: createSiv(secrets.keyObject('state-encryption'), secrets.keyObject('state-iv'), 1024),
    // After a reset the clock may have passed a fixture's fixed expiry: such a token is simply not restored.
    preload: (tenant) => {
      try {
        preloadFixtureTokens(tenant, false);
      } catch (err) {
        if (!(err instanceof VaultError)) throw err;
      }
      activeScenarios.preload(tenant);
    },
    engine,
    scenarios: activeScenarios,
  });
  const app = buildApp({
    config,
    clock: clocks,
    vault,
    sales,
    refs,
    ids,
    controller,
    journal,
    engine,
    heldSockets,
    logWrite: io.writeErr,
    logColor: io.isTTY === true,
    reportUnexpected: (err) => io.writeErr(`token-sim: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  });
  return {
    app,
    config,
    vault,
    clock: clockFacade(controller),
    requests: (tenant) => controller.requests(tenant),
    clearRequests: (tenant) => controller.clearRequests(tenant),
    reset: (tenant) => controller.reset(tenant),
    exportState: () => controller.exportState(),
    importState: (state) => libraryCall(() => controller.importState(state)),
    loadScenarios: (...items) => libraryCall(() => controller.loadScenarios(resolveScenarios(items))),
    scenarios: () => controller.scenarios(),
    heldSockets,
  };
}

export interface RunningSimulator extends Simulator {
  /** e.g. `http://127.0.0.1:54321` */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Starts a simulator and resolves once its port is listening. */
export async function startSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): Promise<RunningSimulator> {
  const sim = createSimulator(options, io);
  const server = createServer(sim.app);
  // A slow or stalled client cannot hold a socket for ever: headers within 10 s, the whole request in 30 s.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.listen(sim.config.port, sim.config.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([err]: unknown[]) => Promise.reject(err as Error)),
  ]);
  const { port } = server.address() as AddressInfo;
  const host = sim.config.host.includes(':') ? `[${sim.config.host}]` : sim.config.host;
  if (!isLoopback(sim.config.host) && sim.config.adminToken === undefined) {
    io.writeErr(
      `token-sim: warning: listening on ${sim.config.host}, reachable from other machines, and /_sim (which can reset, ` +
        'import and rewrite all state) has no --admin-token; it is a sandbox for test card data, not a vault for real cards',
    );
  }
  let closing: Promise<void> | undefined;
  return {
    ...sim,
    url: `http://${host}:${port}`,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Stop accepting; let requests in flight (scripted delays included) finish; close each kept-alive
        // connection as soon as it falls idle rather than waiting for its keep-alive timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
        // A `noResponse` fault would otherwise hold the server open until the client gives up.
        for (const socket of sim.heldSockets) socket.destroy();
      });
      return closing;
    },
  };
}

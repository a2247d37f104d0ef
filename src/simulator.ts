/** The composition root: builds one simulator's dependencies once, and starts or stops its server. */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { resolveConfig, toEpochMs, type SimulatorConfig, type SimulatorOptions } from './config/options.js';
import { formatInstant } from './domain/instant.js';
import { createBinTable } from './domain/card.js';
import { parseDuration, addDuration } from './domain/duration.js';
import { createSales } from './domain/sale.js';
import { createVault, type Vault } from './domain/vault.js';
import { createMerchants } from './config/merchants.js';
import { buildApp } from './http/app.js';
import { createVirtualClock, type VirtualClock } from './infra/clock.js';
import { createIdSource } from './infra/ids.js';
import { createMemoryStore } from './infra/memory-store.js';
import { createRefCodec } from './infra/refs.js';
import { createSecrets } from './infra/secrets.js';

const CONFLICT_WINDOW_MS = 30 * 60 * 1000;
const NAMESPACE_LIMIT = 16;

export interface SimulatorClock {
  /** The virtual now as an ISO 8601 string. */
  now(): string;
  /** Moves forward by an ISO 8601 duration (`P8D`) or milliseconds. */
  advance(by: string | number): string;
  /** Sets the time; `frozen` switches between frozen and following real time. */
  set(now: string | number | Date, frozen?: boolean): string;
}

export interface Simulator {
  readonly app: Express;
  readonly config: SimulatorConfig;
  readonly vault: Vault;
  readonly clock: SimulatorClock;
  readonly virtualClock: VirtualClock;
}

export interface SimulatorIo {
  /** Where request logs and unexpected errors go (stderr for the CLI). */
  writeErr: (line: string) => void;
}

const stderrIo: SimulatorIo = { writeErr: (line) => void process.stderr.write(`${line}\n`) };

function clockFacade(clock: VirtualClock): SimulatorClock {
  const iso = formatInstant;
  return {
    now: () => iso(clock.now()),
    advance(by) {
      const now = clock.now();
      const d = typeof by === 'string' ? parseDuration(by) : undefined;
      const ms = typeof by === 'number' ? by : d ? addDuration(now, d) - now : Number.NaN;
      if (!(ms >= 0)) throw new RangeError(`advance takes a non-negative ISO 8601 duration or milliseconds, got '${String(by)}'`);
      return iso(clock.advance(ms));
    },
    set(now, frozen) {
      const ms = toEpochMs(now);
      if (ms === undefined) throw new RangeError(`set takes an ISO 8601 date-time, got '${String(now)}'`);
      return iso(clock.set(ms, frozen));
    },
  };
}

export function createSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): Simulator {
  const config = resolveConfig(options);
  const secrets = createSecrets(config.seed);
  const virtualClock = createVirtualClock({
    frozen: config.frozen,
    ...(config.start !== undefined && { start: config.start }),
  });
  const ids = createIdSource(secrets.key('ids'));
  const refs = createRefCodec(secrets);
  const merchants = createMerchants(config);
  const binTable = createBinTable(config.fixtures.bins);
  const vault = createVault({
    clock: virtualClock,
    ids,
    store: createMemoryStore(),
    binTable,
    policy: {
      lifetime: config.lifetime,
      extension: config.extension,
      conflictWindowMs: CONFLICT_WINDOW_MS,
      namespaceLimit: NAMESPACE_LIMIT,
    },
    merchants,
  });
  const sales = createSales({ clock: virtualClock, ids, vault, merchants, binTable });
  const app = buildApp({
    config,
    clock: virtualClock,
    vault,
    sales,
    refs,
    ids,
    logWrite: io.writeErr,
    reportUnexpected: (err) => io.writeErr(`token-sim: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  });
  return { app, config, vault, clock: clockFacade(virtualClock), virtualClock };
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
  const server = sim.app.listen(sim.config.port, sim.config.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([err]: unknown[]) => Promise.reject(err as Error)),
  ]);
  const { port } = server.address() as AddressInfo;
  const host = sim.config.host.includes(':') ? `[${sim.config.host}]` : sim.config.host;
  let closing: Promise<void> | undefined;
  return {
    ...sim,
    url: `http://${host}:${port}`,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

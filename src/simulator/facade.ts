/** The library facade of one simulator: what `createSimulator` and `startSimulator` hand to a test suite. */
import type { RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { toEpochMs, type SimulatorConfig } from '../config/options.js';
import type { Controller } from '../control/controller.js';
import type { JournalEntry } from '../control/journal.js';
import type { StateSnapshot } from '../control/state.js';
import { advanceMs } from '../domain/duration.js';
import type { Vault } from '../domain/vault.js';
import { isAnswer, renderError, type ErrorBody } from '../http/errors.js';
import type { Scenario } from '../scenarios/schema.js';

export interface SimulatorClock {
  /** The virtual now (of the tenant, when named) as an ISO 8601 string. */
  now(tenant?: string): string;
  /** Moves forward by an ISO 8601 duration (`P8D`) or milliseconds: the shared clock, or the tenant's own. */
  advance(by: string | number, tenant?: string): string;
  /** Sets the time; `frozen` switches between frozen and following real time. */
  set(now: string | number | Date, frozen?: boolean, tenant?: string): string;
}

export interface Simulator {
  /** The Express adapter: every route, for supertest (no socket). */
  readonly app: Express;
  /** The node:http adapter: the simulated API straight from node, everything else through `app`. */
  readonly listener: RequestListener;
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

/** The library's errors carry the same errorName, message and details as the HTTP error body. */
export class SimulatorError extends Error {
  readonly errorName: string;
  readonly details: ErrorBody;
  constructor(error: unknown) {
    const { body } = renderError(error);
    const firstProblem = body.validationErrors?.[0];
    super(firstProblem ? `${body.message}: ${firstProblem.jsonPath ?? ''} ${firstProblem.message}`.trim() : body.message);
    this.name = 'SimulatorError';
    this.errorName = body.errorName;
    this.details = body;
  }
}

/** Runs a library call; token-sim's own refusals become SimulatorErrors, bugs stay what they are. */
export function libraryCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw isAnswer(err) ? new SimulatorError(err) : err;
  }
}

export function clockFacade(controller: Controller): SimulatorClock {
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

/** A module of its own: controller.ts and snapshots.ts both take it, and the controller imports the snapshots. */
import type { PaymentStore, Profiles, Store } from '../domain/ports.js';
import type { TenantClocks } from '../infra/clock.js';
import type { IdSource } from '../infra/ids.js';
import type { Siv } from '../infra/siv.js';
import type { ActiveScenarios } from '../scenarios/active-set.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Journal } from './journal.js';

/** What the controller and its snapshots (snapshots.ts) work with. */
export interface ControllerDeps {
  clocks: TenantClocks;
  store: Store;
  journal: Journal;
  ids: IdSource;
  /** Seals card numbers in snapshots. */
  siv: Siv;
  /** Puts configured tokens (fixtures, scenarios) back after a reset. */
  preload(tenant?: string): void;
  engine: ScenarioEngine;
  scenarios: ActiveScenarios;
  /** The profile in force: imported tokens without an extension of their own take its extension. */
  profiles: Profiles;
  /** Whether a name is a configured credential (a tenant). */
  isTenant(name: string): boolean;
  /** Drops the webhook queue and delivery log (of one tenant, or all) at a reset (decision 0030). */
  clearWebhooks?(tenant?: string): void;
  /** Payments: their store, and the catch-up of a tenant's events that are due by its clock (a clock move). */
  payments?: { store: PaymentStore; catchUp(tenant: string): number };
  /** Hands on the tenant's webhook deliveries a rule delayed until its clock's now (decision 0056), after a catch-up. */
  releaseWebhooks?(tenant: string): void;
  /** Told after each reset (of one tenant, or all, `undefined`): a whole reset clears health's store report (decision 0041). */
  afterReset?(tenant: string | undefined): void;
}

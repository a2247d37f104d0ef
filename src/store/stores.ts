/**
 * The store a simulator runs on, chosen in one place (decision 0050): the memory stores, or the same memory
 * stores as one process's replica of records in Redis (decision 0039, docs/consistency.md). Whatever else of
 * the simulator depends on the choice is asked of the store set, never of the configuration.
 */
import { ConfigError } from '../config/fixtures.js';
import type { SimulatorConfig } from '../config/options.js';
import { DEFAULT_BODY_CHARS, createJournal, type Journal } from '../control/journal.js';
import type { PaymentStore, Store } from '../domain/ports.js';
import type { WebhookDispatcher, WebhookItem } from '../infra/webhooks.js';
import { createMemoryPaymentStore } from './memory-payments.js';
import { createMemoryStore } from './memory-store.js';
import type { StoreParts } from './redis/records.js';
import type { Replica } from './redis/replica.js';
import { openRedisStores } from './redis/shared-store.js';
import { heldWebhooks, memoryHeldDeliveries, type HeldWebhookCalls } from './webhook-gate.js';

/** What `/_sim/health` says of the store (decision 0041). */
export type StoreHealth = { kind: 'memory' } | { kind: 'redis'; up: boolean; state?: 'reset'; at?: string };

/** What a simulator asks of its store, memory or Redis; the webhook calls are webhook-gate.ts's, for both. */
export interface StoreSet extends HeldWebhookCalls {
  readonly tokens: Store;
  readonly payments: PaymentStore;
  /** The request journal: this process's, or (Redis) every process's on demand. */
  readonly journal: Journal;
  /** What the simulator's keys are seeded from (with Redis, without --seed: the key prefix, decision 0039). */
  readonly seed: string | undefined;
  /** This process's name among those sharing the store (keeps correlation ids apart); none with memory. */
  readonly processName: string | undefined;
  /** Hands a webhook to delivery: at once, or (Redis) recorded with the change that made it and sent after its commit. */
  send(job: WebhookItem): void;
  /** The dispatcher is done with a job. */
  settled(job: WebhookItem): void;
  health(): Promise<StoreHealth>;
  /** After a reset of one tenant or (undefined) all. */
  afterReset(tenant: string | undefined): void;
  /** The shared store's replica (API units, control calls, start, close); none with memory. */
  readonly replica: Replica | undefined;
  /** Gives a shared store the rest of the simulator, once it exists. */
  bind(parts: StoreParts): void;
}

/** Memory, or Redis: the one place a simulator's store is chosen. */
export function openStores(config: SimulatorConfig, dispatcher: WebhookDispatcher): StoreSet {
  const journal = createJournal({ perTenant: config.journalSize, total: config.journalTotal, bodyChars: DEFAULT_BODY_CHARS });
  if (config.store.kind === 'memory') return memoryStores(config, journal, dispatcher);
  if (config.stateFile !== undefined) {
    throw new ConfigError('--state-file keeps a memory store\'s state: with --store redis the state lives in Redis');
  }
  return openRedisStores(config, config.store.url, journal, dispatcher);
}

function memoryStores(config: SimulatorConfig, journal: Journal, dispatcher: WebhookDispatcher): StoreSet {
  return {
    tokens: createMemoryStore(),
    payments: createMemoryPaymentStore(),
    journal,
    seed: config.seed,
    processName: undefined,
    send: (job) => dispatcher.enqueue(job),
    // The deliveries a scenario rule holds back (decision 0056).
    ...heldWebhooks(memoryHeldDeliveries(dispatcher), dispatcher),
    settled: () => undefined,
    health: () => Promise.resolve({ kind: 'memory' }),
    afterReset: () => undefined,
    replica: undefined,
    bind: () => undefined,
  };
}

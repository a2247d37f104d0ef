/**
 * The store a simulator runs on, chosen in one place (decision 0050): the memory stores, or the same memory
 * stores as one process's replica of records in Redis (decision 0039, docs/consistency.md). Whatever else of
 * the simulator depends on the choice is asked of the store set, never of the configuration.
 */
import { ConfigError } from '../config/fixtures.js';
import type { SimulatorConfig } from '../config/options.js';
import { DEFAULT_BODY_CHARS, createJournal, type Journal } from '../control/journal.js';
import type { WebhookDispatcher } from '../infra/webhooks.js';
import { createMemoryPaymentStore } from './memory-payments.js';
import { createMemoryStore } from './memory-store.js';
import { openRedisStores } from './redis/shared-store.js';
import { heldWebhooks, memoryHeldDeliveries } from './webhook-gate.js';

export type { StoreHealth, StoreSet } from './store-set.js';
import type { StoreSet } from './store-set.js';

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

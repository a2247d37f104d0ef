/**
 * The store a simulator runs on, chosen once (decision 0050): the memory stores, or the same memory stores as one
 * process's replica of records in Redis (decision 0039, docs/consistency.md).
 */
import { randomUUID } from 'node:crypto';
import { ConfigError } from '../config/fixtures.js';
import type { SimulatorConfig } from '../config/options.js';
import { DEFAULT_BODY_CHARS, createJournal, type Journal } from '../control/journal.js';
import type { WebhookDispatcher, WebhookItem } from '../infra/webhooks.js';
import { createMemoryPaymentStore } from './memory-payments.js';
import { createMemoryStore } from './memory-store.js';
import { createSharedJournal } from './redis/journal.js';
import { createRedisLink } from './redis/link.js';
import { createOutbox } from './redis/outbox.js';
import { PAYMENT, TOKEN, createRecords, type StoreParts } from './redis/records.js';
import { createReplica } from './redis/replica.js';
import { heldWebhooks, memoryHeldDeliveries } from './webhook-gate.js';

/** What a simulator asks of its store, memory or Redis. */
export type StoreSet = ReturnType<typeof memoryStores> | ReturnType<typeof redisStores>;

/** What `/_sim/health` says of the store (decision 0041). */
export type StoreHealth = Awaited<ReturnType<StoreSet['health']>>;

const LOST_LINE =
  'token-sim: the Redis store lost its state (Redis restarted empty or was flushed): the simulator started over ' +
  'from its configuration (fixtures, scenarios, --now); tokens and payments made before are gone';

/** Memory, or Redis: the one place a simulator's store is chosen. */
export function openStores(config: SimulatorConfig, dispatcher: WebhookDispatcher): StoreSet {
  const journal = createJournal({ perTenant: config.journalSize, total: config.journalTotal, bodyChars: DEFAULT_BODY_CHARS });
  if (config.store.kind === 'memory') return memoryStores(config, journal, dispatcher);
  if (config.stateFile !== undefined) {
    throw new ConfigError('--state-file keeps a memory store\'s state: with --store redis the state lives in Redis');
  }
  return redisStores(config, config.store.url, journal, dispatcher);
}

function memoryStores(config: SimulatorConfig, journal: Journal, dispatcher: WebhookDispatcher) {
  return {
    tokens: createMemoryStore(),
    payments: createMemoryPaymentStore(),
    journal,
    seed: config.seed,
    processName: undefined,
    send: (job: WebhookItem) => dispatcher.enqueue(job),
    // The deliveries a scenario rule holds back (decision 0056).
    ...heldWebhooks(memoryHeldDeliveries(dispatcher), dispatcher),
    settled: () => undefined,
    health: () => Promise.resolve({ kind: 'memory' as const }),
    afterReset: () => undefined,
    replica: undefined,
    bind: () => undefined,
  };
}

/** The Redis store set at `url`; `ownJournal` is this process's journal, which the shared one records into. */
function redisStores(config: SimulatorConfig, url: string, ownJournal: Journal, dispatcher: WebhookDispatcher) {
  const tenants = [...config.credentials.keys()];
  // Keeps this process's correlation ids and journal entries apart from the other processes'.
  const processName = randomUUID();
  const link = createRedisLink(url, config.storePrefix);
  const core = createReplica({ link, tenants });
  /** When this process found that Redis had lost its state, until a whole reset (decision 0041). */
  let lost: { at: string } | undefined;
  const tokens = createMemoryStore((tenant, id) => core.touch(tenant, TOKEN + id));
  const payments = createMemoryPaymentStore(undefined, (tenant, id) => core.touch(tenant, PAYMENT + id));
  const journal = createSharedJournal(ownJournal, link, { origin: processName, tenants, cap: config.journalSize });
  const outbox = createOutbox(dispatcher, core, (eventId, ms) => link.lease(eventId, processName, ms));
  return {
    tokens,
    payments,
    journal,
    // Processes sharing a Redis share their keys (refs, sealed card numbers): without --seed, the prefix seeds them.
    seed: config.seed ?? `token-sim store ${config.storePrefix}`,
    processName,
    // Recorded with the change that caused it, sent once that is committed.
    send: (job: WebhookItem) => outbox.deliver(job),
    ...heldWebhooks(outbox, dispatcher),
    settled: (job: WebhookItem) => outbox.settled(job),
    health: async () => ({ kind: 'redis' as const, up: await link.ping(), ...(lost && { state: 'reset' as const, at: lost.at }) }),
    // A whole reset (not one tenant's) is the answer to a lost store: health reports it no more.
    afterReset(tenant: string | undefined) {
      if (tenant === undefined) lost = undefined;
    },
    replica: {
      ...core,
      // A control read shows the other processes' journal entries too.
      read: () => core.start().then(() => journal.pull()),
      close() {
        journal.close();
        outbox.close();
        return core.close();
      },
    },
    /** Gives the replica the rest of the simulator, once it exists. */
    bind(parts: StoreParts): void {
      core.bind({
        records: createRecords({ ...parts, store: tokens, payments, journal, outbox }),
        restart() {
          parts.restart();
          // Once per loss in each process (decision 0041); `at` is the wall clock's, as in Redis's own log.
          lost = { at: new Date().toISOString() };
          parts.countReset();
          parts.writeErr(LOST_LINE);
        },
      });
    },
  };
}

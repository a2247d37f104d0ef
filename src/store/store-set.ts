/** What a simulator asks of its store, memory or Redis (stores.ts chooses; decision 0050). */
import type { Journal } from '../control/journal.js';
import type { PaymentStore, Store } from '../domain/ports.js';
import type { WebhookItem } from '../infra/webhooks.js';
import type { Replica } from './redis/replica.js';
import type { StoreParts } from './redis/records.js';
import type { HeldWebhookCalls } from './webhook-gate.js';

/** What `/_sim/health` says of the store (decision 0041). */
export type StoreHealth = { kind: 'memory' } | { kind: 'redis'; up: boolean; state?: 'reset'; at?: string };

/** The webhook calls (`HeldWebhookCalls`) are those of webhook-gate.ts's `heldWebhooks`, for both stores. */
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

/**
 * The Redis store set (decision 0039, docs/consistency.md): the memory stores as one process's replica of the
 * records in Redis. They tell the replica each token and payment written through them; the journal is shared
 * on demand and webhooks go through an outbox committed with the change that made them.
 */
import { randomUUID } from 'node:crypto';
import type { SimulatorConfig } from '../../config/options.js';
import type { Journal } from '../../control/journal.js';
import type { WebhookDispatcher, WebhookItem } from '../../infra/webhooks.js';
import { createMemoryPaymentStore } from '../memory-payments.js';
import { createMemoryStore } from '../memory-store.js';
import { createSharedJournal } from './journal.js';
import { createRedisLink } from './link.js';
import { createOutbox } from './outbox.js';
import { createRecords, paymentField, tokenField, type StoreParts } from './records.js';
import { createReplica } from './replica.js';
import { heldWebhooks } from '../webhook-gate.js';

const LOST_LINE =
  'token-sim: the Redis store lost its state (Redis restarted empty or was flushed): the simulator started over ' +
  'from its configuration (fixtures, scenarios, --now); tokens and payments made before are gone';

/** The Redis store set at `url`; `ownJournal` is this process's journal, which the shared one records into. */
export function openRedisStores(config: SimulatorConfig, url: string, ownJournal: Journal, dispatcher: WebhookDispatcher) {
  const tenants = [...config.credentials.keys()];
  // This process's name keeps its correlation ids and journal entries apart from the other processes'.
  const processName = randomUUID();
  const link = createRedisLink(url, config.storePrefix);
  const core = createReplica({ link, tenants });
  /** When this process found that Redis had lost its state, until a whole reset (decision 0041). */
  let lost: { at: string } | undefined;
  // They tell the replica of every record written through them, as the field it goes to.
  const tokens = createMemoryStore((tenant, id) => core.touch(tenant, tokenField(id)));
  const payments = createMemoryPaymentStore(undefined, (tenant, id) => core.touch(tenant, paymentField(id)));
  // Every process lists every process's requests.
  const journal = createSharedJournal(ownJournal, link, { origin: processName, tenants, cap: config.journalSize });
  // The queue is an outbox of records, committed with the change that made each event.
  const outbox = createOutbox(dispatcher, core, (eventId, ms) => link.lease(eventId, processName, ms));
  const replica = {
    ...core,
    // A control read shows the other processes' journal entries too.
    read: () => core.read().then(() => journal.pull()),
    close() {
      journal.close();
      outbox.close();
      return core.close();
    },
  };

  function bind(parts: StoreParts): void {
    core.bind({
      records: createRecords({
        ...parts,
        store: tokens,
        payments,
        journal,
        outbox,
      }),
      restart() {
        parts.restart();
        // Said once per loss in each process (decision 0041); `at` is the wall clock's, as in Redis's own log.
        lost = { at: new Date().toISOString() };
        parts.countReset();
        parts.writeErr(LOST_LINE);
      },
    });
  }

  return {
    tokens,
    payments,
    journal,
    // Processes sharing a Redis share their keys (refs, sealed card numbers): without --seed, the prefix seeds them.
    seed: config.seed ?? `token-sim store ${config.storePrefix}`,
    processName,
    // A new delivery: recorded with the change that caused it, sent once that is committed.
    send: (job: WebhookItem) => outbox.deliver(job),
    ...heldWebhooks(outbox, dispatcher),
    settled: (job: WebhookItem) => outbox.settled(job),
    health: async () => ({ kind: 'redis' as const, up: await link.ping(), ...(lost && { state: 'reset' as const, at: lost.at }) }),
    // A whole reset (not one tenant's) is the answer to a lost store: health reports it no more.
    afterReset(tenant: string | undefined) {
      if (tenant === undefined) lost = undefined;
    },
    replica,
    bind,
  };
}

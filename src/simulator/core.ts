/** The parts of one simulator below its HTTP surfaces (compose.ts wires them and serves them). */
import type { FixtureToken } from '../config/fixtures.js';
import { createMerchants } from '../config/merchants.js';
import { webhookUrlFor, type SimulatorConfig } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import { createBinTable } from '../domain/card.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { createPayments } from '../domain/payments.js';
import { createSales } from '../domain/sale.js';
import { createVault } from '../domain/vault.js';
import { webhookEventBody } from '../http/present.js';
import { createWebhookSender } from '../http/webhook-sender.js';
import { createTenantClocks, createVirtualClock } from '../infra/clock.js';
import { createIdSource } from '../infra/ids.js';
import { createRefCodec } from '../infra/refs.js';
import { createSecrets } from '../infra/secrets.js';
import { createSiv } from '../infra/siv.js';
import { createWebhookDispatcher, type WebhookResend } from '../infra/webhooks.js';
import { HttpError } from '../http/errors.js';
import { createActiveScenarios } from '../scenarios/active-set.js';
import { createScenarioEngine, eventDeliveries } from '../scenarios/engine.js';
import { openStores } from '../store/stores.js';
import { toCreateInput } from '../wire/schemas.js';
import { resolveStateKey } from './state-file.js';

const CONFLICT_WINDOW_MS = 30 * 60 * 1000;
const NAMESPACE_LIMIT = 16;

/** Where a simulator writes its request log and reports unexpected errors (stderr by default, and for the CLI). */
export interface SimulatorIo {
  writeErr: (line: string) => void;
  /** Whether that is a terminal (the pretty log is coloured only there). */
  isTTY?: boolean;
  /** Colour the pretty log (default: isTTY). */
  color?: boolean; // the CLI decides it with NO_COLOR and FORCE_COLOR
}

export const stderrIo: SimulatorIo = { writeErr: (line) => void process.stderr.write(`${line}\n`), isTTY: process.stderr.isTTY };

/** Where the simulator's links point: the configured base URL, else the address listened on once known. */
export interface Addresses {
  listeningUrl: string | undefined;
}

/** The base of links made without a request in hand (the library's lists, webhooks): `--base-url`, else the address listened on, else the configured one. */
export const baseUrlOf = (config: SimulatorConfig, addresses: Addresses): string =>
  config.baseUrl ?? addresses.listeningUrl ?? `${config.tls ? 'https' : 'http'}://${config.host}:${config.port}`;

/** The parts of one simulator below its HTTP surface: store, clocks, ids, rules, scenarios, webhooks. */
export function createCore(config: SimulatorConfig, addresses: Addresses) {
  // Webhook delivery (decision 0030): the payment domain enqueues rendered events; sockets close with it.
  const webhookSender = createWebhookSender(`token-sim/${packageVersion()}`, config.webhookCa, config.webhookClient);
  const webhooks = createWebhookDispatcher({ send: webhookSender.send, onClose: webhookSender.close, onSettled: (item) => stores.settled(item) });
  // The store, chosen once: memory, or memory as a replica of Redis (decision 0050).
  const stores = openStores(config, webhooks);
  // With --state-file the state key is the given one or the key file's (decision 0027).
  const stateKey = config.stateFile === undefined ? config.stateKey : resolveStateKey(config.stateFile, config.stateKey);
  const secrets = createSecrets(stores.seed, stateKey);
  const clocks = createTenantClocks(
    createVirtualClock({ frozen: config.frozen, ...(config.start !== undefined && { start: config.start }) }),
  );
  const ids = createIdSource(secrets.keyObject('ids'), stores.processName);
  const refs = createRefCodec(secrets, config.credentials.keys());
  const paymentRefs = createRefCodec(secrets, config.credentials.keys(), { keyLabel: 'payment-refs' });
  const merchants = createMerchants(config);
  const binTable = createBinTable(config.fixtures.bins);
  const defaultUser = config.fixtures.credentials[0]?.username ?? 'merchant';
  const engine = createScenarioEngine(ids);

  // The vault reads the profile in force from the active scenario set, which creates preloaded tokens
  // through the vault: the set gets the vault's create as a late-bound function.
  const createPreloaded = (t: FixtureToken, username: string): void => {
    vault.create(username, { ...toCreateInput(t), ...(t.tokenId !== undefined && { tokenId: t.tokenId }) });
  };
  const activeScenarios = createActiveScenarios({ engine, config, merchants, defaultUser, createToken: createPreloaded, now: (t) => clocks.now(t) });
  const vault = createVault({
    clock: clocks,
    ids,
    store: stores.tokens,
    binTable,
    policy: { conflictWindowMs: CONFLICT_WINDOW_MS, namespaceLimit: NAMESPACE_LIMIT },
    profiles: activeScenarios,
    merchants,
  });
  const sales = createSales({ clock: clocks, ids, vault, merchants, binTable });
  /**
   * Every payment event goes to the tenant's webhook receiver, if it has one, rendered as it happens (decision
   * 0030): delivery never blocks the request or the clock move that caused it. A rule on `operation: webhook`
   * may duplicate, hold back or drop it (decision 0056); what a rule delayed until this event's time goes first.
   */
  const onEvent = (payment: Payment, event: PaymentEvent): void => {
    const url = webhookUrlFor(config, payment.tenant);
    if (url === undefined) return;
    const baseUrl = payment.origin ?? baseUrlOf(config, addresses);
    const eventId = ids.eventId(payment.tenant, payment.paymentId, event.seq);
    const item = {
      tenant: payment.tenant,
      url,
      orderKey: `${payment.tenant}\u0000${payment.paymentId}`,
      eventId,
      type: event.type,
      body: JSON.stringify(webhookEventBody({ baseUrl, refs: paymentRefs }, payment, event, eventId)),
      mediaType: `application/vnd.${config.vendor}.events-v1.hal+json`,
    };
    stores.releaseWebhooks(payment.tenant, event.at);
    const facts = { item, type: event.type, transactionReference: payment.transactionReference, at: event.at };
    stores.sendEvent(eventDeliveries(engine, facts, () => ids.webhookId(payment.tenant)));
  };
  const payments = createPayments({ clock: clocks, ids, store: stores.payments, settlementDelay: config.settlementDelay, onEvent });
  const siv = createSiv(secrets.keyObject('state-encryption'), secrets.keyObject('state-iv'), 1024);
  /**
   * `POST /_sim/webhooks/<id>/resend` (decision 0056): the logged delivery `id` (the tenant's, when one is named)
   * sent again: the same event as a new delivery with an id of its own, in order behind the payment's others, past every rule.
   */
  const resendWebhook = (id: string, tenant: string | undefined): WebhookResend => {
    const found = webhooks.find(id);
    if (found === undefined || (tenant !== undefined && found.tenant !== tenant)) {
      throw new HttpError('webhookNotFound', `No webhook delivery '${id}'${tenant === undefined ? '' : ` of tenant '${tenant}'`} in this simulator's delivery log`);
    }
    const { url, orderKey, eventId, type, body, mediaType } = found;
    const again = { tenant: found.tenant, url, orderKey, eventId, type, body, mediaType, id: ids.webhookId(found.tenant) };
    stores.send(again);
    return { id: again.id, eventId, resendOf: id };
  };
  const isTenant = (name: string): boolean => config.credentials.has(name);
  return { config, stores, webhooks, webhookSender, clocks, ids, refs, paymentRefs, engine, activeScenarios, vault, sales, payments, siv, defaultUser, createPreloaded, resendWebhook, isTenant };
}

export type Core = ReturnType<typeof createCore>;

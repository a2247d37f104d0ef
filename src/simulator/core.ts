/** The parts of one simulator below its HTTP surfaces (compose.ts wires them and serves them). */
import type { FixtureToken } from '../config/fixtures.js';
import { createMerchants, webhookUrlFor, type SimulatorConfig } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import { createBinTable } from '../domain/card.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { createPayments } from '../domain/payments.js';
import type { SalesDeps } from '../domain/sale.js';
import { createVault } from '../domain/vault.js';
import { webhookEventBody } from '../http/present.js';
import { createWebhookSender } from '../http/webhook-sender.js';
import { createTenantClocks, createVirtualClock } from '../infra/clock.js';
import { createIdSource } from '../infra/ids.js';
import { createRefCodec } from '../infra/refs.js';
import { createSecrets, createSiv } from '../infra/siv.js';
import { WebhookDispatcher, type WebhookResend } from '../infra/webhooks.js';
import { HttpError } from '../http/errors.js';
import { createActiveScenarios } from '../scenarios/active-set.js';
import { createScenarioEngine, eventDeliveries } from '../scenarios/engine.js';
import { openStores } from '../store/stores.js';
import { toCreateInput } from '../wire/schemas.js';
import { resolveStateKey } from './state-file.js';

/** Where a simulator writes its request log and reports unexpected errors (stderr by default, and for the CLI). */
export interface SimulatorIo {
  writeErr: (line: string) => void;
  /** Whether that is a terminal (the pretty log is coloured only there). */
  isTTY?: boolean;
  /** Colour the pretty log (default: isTTY). */
  color?: boolean; // the CLI decides it with NO_COLOR and FORCE_COLOR
}

export const stderrIo: SimulatorIo = { writeErr: (line) => void process.stderr.write(`${line}\n`), isTTY: process.stderr.isTTY };

/** The parts of one simulator below its HTTP surface: store, clocks, ids, rules, scenarios, webhooks. */
export function createCore(config: SimulatorConfig) {
  let listeningUrl: string | undefined;
  /** The base of links made without a request in hand (the library's lists, webhooks): `--base-url`, else the address listened on, else the configured one. */
  const baseUrl = (): string => config.baseUrl ?? listeningUrl ?? `${config.tls ? 'https' : 'http'}://${config.host}:${config.port}`;
  // Webhook delivery (decision 0030): the payment domain enqueues rendered events; sockets close with it.
  const webhookSender = createWebhookSender(`token-sim/${packageVersion()}`, config.webhookCa, config.webhookClient);
  const webhooks = new WebhookDispatcher({ send: webhookSender.send, onClose: webhookSender.close, onSettled: (item) => stores.settled(item) });
  // The store, chosen once: memory, or memory as a replica of Redis (decision 0050).
  const stores = openStores(config, webhooks);
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

  // The vault reads its profile from the active set, which preloads tokens through the vault's create (late-bound).
  const createPreloaded = (t: FixtureToken, username: string): void => {
    vault.create(username, { ...toCreateInput(t), ...(t.tokenId !== undefined && { tokenId: t.tokenId }) });
  };
  const scenarios = createActiveScenarios({ engine, config, merchants, defaultUser, createToken: createPreloaded, now: (t) => clocks.now(t) });
  const vault = createVault({
    clock: clocks,
    ids,
    store: stores.tokens,
    binTable,
    policy: { conflictWindowMs: 30 * 60 * 1000, namespaceLimit: 16 },
    profiles: scenarios,
    merchants,
  });
  const sales: SalesDeps = { clock: clocks, ids, vault, merchants, binTable };
  // Each payment event rendered for the tenant's receiver, never blocking (decision 0030); rules shape it (0056).
  const onEvent = (payment: Payment, event: PaymentEvent): void => {
    const url = webhookUrlFor(config, payment.tenant);
    if (url === undefined) return;
    const base = payment.origin ?? baseUrl();
    const eventId = ids.eventId(payment.tenant, payment.paymentId, event.seq);
    const item = {
      tenant: payment.tenant,
      url,
      orderKey: `${payment.tenant}\u0000${payment.paymentId}`,
      eventId,
      type: event.type,
      body: JSON.stringify(webhookEventBody({ baseUrl: base, refs: paymentRefs }, payment, event, eventId)),
      mediaType: `application/vnd.${config.vendor}.events-v1.hal+json`,
    };
    stores.releaseWebhooks(payment.tenant, event.at);
    const facts = { item, type: event.type, transactionReference: payment.transactionReference, at: event.at };
    stores.sendEvent(eventDeliveries(engine, facts, () => ids.webhookId(payment.tenant)));
  };
  const payments = createPayments({ clock: clocks, ids, store: stores.payments, settlementDelay: config.settlementDelay, onEvent });
  const siv = createSiv(secrets.keyObject('state-encryption'), secrets.keyObject('state-iv'), 1024);
  // A logged delivery sent again as a new one, past every rule (decision 0056).
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
  return { config, stores, webhooks, webhookSender, clocks, ids, refs, paymentRefs, engine, scenarios, vault, sales, payments, siv, defaultUser, createPreloaded, resendWebhook, isTenant, baseUrl, listening: (url: string) => void (listeningUrl = url) };
}

export type Core = ReturnType<typeof createCore>;

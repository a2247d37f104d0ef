/** The composition root: the only place that picks implementations and wires one simulator's parts. */
import type { Socket } from 'node:net';
import { ConfigError, type FixtureToken } from '../config/fixtures.js';
import { createMerchants } from '../config/merchants.js';
import { resolveConfig, webhookUrlFor, type SimulatorConfig, type SimulatorOptions } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import { createController } from '../control/controller.js';
import { createMetrics } from '../control/metrics.js';
import { createBinTable } from '../domain/card.js';
import type { Payment, PaymentEvent } from '../domain/payment.js';
import { createPayments } from '../domain/payments.js';
import { createSales } from '../domain/sale.js';
import { createVault } from '../domain/vault.js';
import { paymentList } from '../http/admin/dashboard.js';
import { createJournalStreams, type JournalStreams } from '../http/journal-stream.js';
import { createListener } from '../http/lane.js';
import { controlTokenList } from '../http/present.js';
import { webhookEventBody } from '../http/present-payments.js';
import { createWebhookSender } from '../http/webhook-sender.js';
import { createTenantClocks, createVirtualClock } from '../infra/clock.js';
import { createIdSource, type IdSource } from '../infra/ids.js';
import { PAYMENT_REF_PURPOSES, createRefCodec, type RefCodec } from '../infra/refs.js';
import { createSecrets } from '../infra/secrets.js';
import { createSiv } from '../infra/siv.js';
import { createWebhookDispatcher } from '../infra/webhooks.js';
import { createActiveScenarios, problemOfRefusal } from '../scenarios/active-set.js';
import { createScenarioEngine } from '../scenarios/engine.js';
import { resolveScenarios } from '../scenarios/loader.js';
import type { Replica } from '../store/redis/replica.js';
import { openStores, type StoreSet } from '../store/stores.js';
import { toCreateInput } from '../wire/schemas.js';
import { createStateSaver, resolveStateKey, restoreStateFile, type StateSaver } from './state-file.js';
import { createControlApp, createEdges, createSimulatedApi } from './surfaces.js';
import { SimulatorError, controlFacade, type ComposedSimulator, type ControlToken, type Simulator } from './facade.js';

const CONFLICT_WINDOW_MS = 30 * 60 * 1000;
const NAMESPACE_LIMIT = 16;

/** Where a simulator writes its request log and reports unexpected errors (stderr by default). */
export interface SimulatorIo {
  /** Where request logs and unexpected errors go (stderr for the CLI). */
  writeErr: (line: string) => void;
  /** Whether that is a terminal (the pretty log is coloured only there). */
  isTTY?: boolean;
  /** Colour the pretty log (default: isTTY). */
  color?: boolean; // the CLI decides it with NO_COLOR and FORCE_COLOR
}

export const stderrIo: SimulatorIo = { writeErr: (line) => void process.stderr.write(`${line}\n`), isTTY: process.stderr.isTTY };

/** Where the simulator's links point: the configured base URL, else the address listened on once known. */
interface Addresses {
  listeningUrl: string | undefined;
}

/** The parts of one simulator below its HTTP surface: store, clocks, ids, rules, scenarios, webhooks. */
function createCore(config: SimulatorConfig, addresses: Addresses) {
  // Webhook delivery (decision 0030): the payment domain enqueues rendered events; sockets close with it.
  const webhookSender = createWebhookSender(`token-sim/${packageVersion()}`);
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
  const paymentRefs = createRefCodec(secrets, config.credentials.keys(), { purposes: PAYMENT_REF_PURPOSES, keyLabel: 'payment-refs' });
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
  const onEvent = eventSender({ config, ids, paymentRefs, stores, addresses });
  const payments = createPayments({ clock: clocks, ids, store: stores.payments, settlementDelay: config.settlementDelay, onEvent });
  const siv = createSiv(secrets.keyObject('state-encryption'), secrets.keyObject('state-iv'), 1024);
  return { config, stores, webhooks, clocks, ids, refs, paymentRefs, engine, activeScenarios, vault, sales, payments, siv, defaultUser, createPreloaded };
}

export type Core = ReturnType<typeof createCore>;

/**
 * Every payment event goes to the tenant's webhook receiver, if it has one, rendered as it happens (decision
 * 0030): delivery never blocks the request or the clock move that caused it.
 */
function eventSender(deps: { config: SimulatorConfig; ids: IdSource; paymentRefs: RefCodec<'payment'>; stores: StoreSet; addresses: Addresses }) {
  const { config, ids, paymentRefs } = deps;
  return (payment: Payment, event: PaymentEvent): void => {
    const url = webhookUrlFor(config, payment.tenant);
    if (url === undefined) return;
    const baseUrl = payment.origin ?? config.baseUrl ?? deps.addresses.listeningUrl ?? `http://${config.host}:${config.port}`;
    const eventId = ids.eventId(payment.tenant, payment.paymentId, event.seq);
    deps.stores.send({
      tenant: payment.tenant,
      url,
      orderKey: `${payment.tenant}\u0000${payment.paymentId}`,
      eventId,
      type: event.type,
      body: JSON.stringify(webhookEventBody({ baseUrl, refs: paymentRefs }, payment, event, eventId)),
      mediaType: `application/vnd.${config.vendor}.events-v1.hal+json`,
    });
  };
}

/** Creates the fixtures' tokens (of one tenant, or all); `strict` turns a refusal into a ConfigError. */
function preloadFixtureTokens(core: Core, tenant: string | undefined, strict: boolean): void {
  (core.config.fixtures.tokens ?? []).forEach((t, i) => {
    const username = t.username ?? core.defaultUser;
    if (tenant !== undefined && username !== tenant) return;
    try {
      core.createPreloaded(t, username);
    } catch (err) {
      const problem = problemOfRefusal(err);
      if (!problem) throw err;
      if (strict) throw new ConfigError(`fixtures token $.tokens[${i}] is refused: ${new SimulatorError(err).errorName} (${problem.message})`);
    }
  });
}

function loadScenarios(core: Core, scenarios: SimulatorOptions['scenarios']): void {
  if (!scenarios || scenarios.length === 0) return;
  try {
    core.activeScenarios.load(resolveScenarios(scenarios));
  } catch (err) {
    if (!problemOfRefusal(err)) throw err;
    throw new ConfigError(`invalid scenarios: ${new SimulatorError(err).message}`);
  }
}

function createControl(core: Core) {
  const { config, stores, activeScenarios } = core;
  return createController({
    clocks: core.clocks,
    store: stores.tokens,
    journal: stores.journal,
    ids: core.ids,
    siv: core.siv,
    // After a reset the clock may have passed a fixture's fixed expiry: such a token is simply not restored.
    preload: (tenant) => {
      preloadFixtureTokens(core, tenant, false);
      activeScenarios.preload(tenant);
    },
    engine: core.engine,
    scenarios: activeScenarios,
    profiles: activeScenarios,
    isTenant: (name) => config.credentials.has(name),
    clearWebhooks: (tenant) => stores.clearWebhooks(tenant),
    payments: { store: stores.payments, catchUp: (tenant) => core.payments.catchUp(tenant) },
    afterReset: (tenant) => stores.afterReset(tenant),
  });
}

export function createSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): ComposedSimulator {
  const config = resolveConfig(options);
  const addresses: Addresses = { listeningUrl: undefined };
  const core = createCore(config, addresses);
  const { stores } = core;
  const metrics = createMetrics({ tokens: () => stores.tokens.size(), payments: () => stores.payments.size(), journal: () => stores.journal.size() });
  preloadFixtureTokens(core, undefined, true);
  loadScenarios(core, options.scenarios);
  const heldSockets = new Set<Socket>();
  // The live journal's open streams (decision 0034): the server ends them when it closes.
  const journalStreams = createJournalStreams();
  const controller = createControl(core);
  if (config.stateFile !== undefined) restoreStateFile(config.stateFile, controller);
  stores.bind({
    ...core,
    scenarios: core.activeScenarios,
    restart: () => controller.reset(),
    countReset: () => metrics.storeReset(),
    writeErr: io.writeErr,
  });
  const edges = createEdges(config, io, core.ids);
  const api = createSimulatedApi(core, edges, metrics, heldSockets);
  const controlApp = createControlApp(core, edges, controller, metrics, journalStreams);
  // Links in the library's token lists: the configured base URL, else the address listened on once known.
  const libraryBaseUrl = (): string => config.baseUrl ?? addresses.listeningUrl ?? `http://${edges.fallbackHost}`;
  // One listener for every request: the API straight through its pipeline, /_sim to the control app (decision 0046).
  const listener = createListener(api, edges.guard, controlApp);
  const sim: ComposedSimulator = {
    app: listener,
    listener,
    config,
    vault: core.vault,
    ...controlFacade({
      controller,
      webhooks: core.webhooks,
      isTenant: (name) => config.credentials.has(name),
      tokenList: (tokens) => controlTokenList(tokens, { baseUrl: libraryBaseUrl(), refs: core.refs }) as ControlToken[],
      payments: (tenant) => paymentList(core.payments, stores.payments, tenant),
    }),
    heldSockets,
    sweepExpired: () => controller.sweepExpired(),
    storedTokens: () => stores.tokens.size(),
    webhookDispatcher: core.webhooks,
    webhookUrlFor: (tenant) => webhookUrlFor(config, tenant),
  };
  listening.set(sim, (url) => void (addresses.listeningUrl = url));
  journalStreamsOf.set(sim, journalStreams);
  if (stores.replica) sharedStores.set(sim, stores.replica);
  if (config.stateFile !== undefined) stateSavers.set(sim, createStateSaver(config.stateFile, config.stateIntervalMs, controller, io.writeErr));
  return sim;
}

/** What startSimulator tells a simulator once it listens (kept off the public object). */
export const listening = new WeakMap<Simulator, (url: string) => void>();

/** The live journal's streams of a simulator, which its server ends at close (kept off the public object). */
export const journalStreamsOf = new WeakMap<Simulator, JournalStreams>();

/** The shared store's replica of a simulator, which its server starts and closes (kept off the public object). */
export const sharedStores = new WeakMap<Simulator, Replica>();

/** Closes a simulator's connection to its shared store, if it has one (a test's simulators never listen). */
export async function closeSharedStore(sim: Simulator): Promise<void> {
  await sharedStores.get(sim)?.close();
}

/** The --state-file saver of a simulator, which startSimulator runs (kept off the public object). */
export const stateSavers = new WeakMap<Simulator, StateSaver>();

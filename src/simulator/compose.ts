/** The composition root: the only place that picks implementations and wires one simulator's parts. */
import type { Socket } from 'node:net';
import { ConfigError, type FixtureToken } from '../config/fixtures.js';
import { createMerchants } from '../config/merchants.js';
import { resolveConfig, webhookUrlFor, type SimulatorOptions } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import { createController } from '../control/controller.js';
import { DEFAULT_BODY_CHARS, createJournal } from '../control/journal.js';
import { createMetrics } from '../control/metrics.js';
import { createBinTable } from '../domain/card.js';
import { createPayments, type Payment, type PaymentEvent } from '../domain/payment.js';
import { createSales } from '../domain/sale.js';
import { createVault } from '../domain/vault.js';
import { createApi } from '../http/api.js';
import { buildApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import { paymentList } from '../http/admin/dashboard.js';
import { createJournalStreams, type JournalStreams } from '../http/journal-stream.js';
import { correlationHeaderFor, createCorrelation } from '../http/correlation.js';
import { createListener } from '../http/lane.js';
import { createGuard } from '../http/guard.js';
import { mediaTypesFor } from '../http/media.js';
import { openApiDocument } from '../http/openapi.js';
import { createPaymentOperations } from '../http/operations/payments.js';
import { createSaleOperation } from '../http/operations/sale.js';
import { createTokenOperations } from '../http/operations/tokens.js';
import { controlTokenList, createReadCache } from '../http/present.js';
import { webhookEventBody } from '../http/present-payments.js';
import { createRequestLogger } from '../http/request-log.js';
import { createWebhookSender } from '../http/webhook-sender.js';
import { createTenantClocks, createVirtualClock } from '../infra/clock.js';
import { createIdSource } from '../infra/ids.js';
import { createMemoryStore } from '../infra/memory-store.js';
import { createRedisLink } from '../infra/redis-link.js';
import { createReplica, type Replica } from '../control/replica.js';
import { createRecords } from '../control/replica-records.js';
import { createSharedJournal } from '../control/shared-journal.js';
import { createOutbox } from '../control/shared-webhooks.js';
import { randomUUID } from 'node:crypto';
import { createMemoryPaymentStore } from '../infra/memory-payments.js';
import { PAYMENT_REF_PURPOSES, createRefCodec } from '../infra/refs.js';
import { createSecrets } from '../infra/secrets.js';
import { createSiv } from '../infra/siv.js';
import { createWebhookDispatcher } from '../infra/webhooks.js';
import { createActiveScenarios, problemOfRefusal } from '../scenarios/active-set.js';
import { createScenarioEngine } from '../scenarios/engine.js';
import { resolveScenarios } from '../scenarios/loader.js';
import { toCreateInput } from '../wire/schemas.js';
import { maskCardText } from '../wire/mask.js';
import { createStateSaver, resolveStateKey, restoreStateFile, type StateSaver } from './state-file.js';
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

export function createSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): ComposedSimulator {
  const config = resolveConfig(options);
  // With --state-file the state key is the given one or the key file's (decision 0027).
  const stateKey = config.stateFile === undefined ? config.stateKey : resolveStateKey(config.stateFile, config.stateKey);
  // Processes sharing a Redis share their keys (refs, sealed card numbers): without --seed, the key prefix
  // seeds them (decision 0039).
  const seed = config.seed ?? (config.store.kind === 'redis' ? `token-sim store ${config.storePrefix}` : undefined);
  const secrets = createSecrets(seed, stateKey);
  const clocks = createTenantClocks(
    createVirtualClock({ frozen: config.frozen, ...(config.start !== undefined && { start: config.start }) }),
  );
  // With Redis, this process's name keeps its correlation ids apart from the other processes' (decision 0039).
  const processName = config.store.kind === 'redis' ? randomUUID() : undefined;
  const ids = createIdSource(secrets.keyObject('ids'), processName);
  const refs = createRefCodec(secrets, config.credentials.keys());
  // With --store redis the memory stores are a replica's cache (decision 0039): they tell it what changed.
  let replica: Replica | undefined;
  /** When this process found that Redis had lost its state, until a whole reset (decision 0041). */
  let storeLost: { at: string } | undefined;
  if (config.store.kind === 'redis' && config.stateFile !== undefined) {
    throw new ConfigError('--state-file keeps a memory store\'s state: with --store redis the state lives in Redis');
  }
  const store = createMemoryStore(config.store.kind === 'redis' ? { changed: (t, id) => replica?.tokenObserver.changed(t, id) } : undefined);
  const paymentRefs = createRefCodec(secrets, config.credentials.keys(), { purposes: PAYMENT_REF_PURPOSES, keyLabel: 'payment-refs' });
  const paymentStore = createMemoryPaymentStore(
    undefined,
    config.store.kind === 'redis' ? { changed: (t, id) => replica?.paymentObserver.changed(t, id) } : undefined,
  );
  const localJournal = createJournal({ perTenant: config.journalSize, total: config.journalTotal, bodyChars: DEFAULT_BODY_CHARS });
  const link = config.store.kind === 'redis' ? createRedisLink({ url: config.store.url, prefix: config.storePrefix }) : undefined;
  // With Redis, every process lists every process's requests (decision 0039).
  const sharedJournal = link
    ? createSharedJournal(localJournal, link, { origin: processName ?? randomUUID(), tenants: [...config.credentials.keys()], cap: config.journalSize })
    : undefined;
  const journal = sharedJournal ?? localJournal;
  const metrics = createMetrics({ tokens: () => store.size(), payments: () => paymentStore.size(), journal: () => journal.size() });
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
    store,
    binTable,
    policy: { conflictWindowMs: CONFLICT_WINDOW_MS, namespaceLimit: NAMESPACE_LIMIT },
    profiles: activeScenarios,
    merchants,
  });
  const sales = createSales({ clock: clocks, ids, vault, merchants, binTable });
  // Webhook delivery (decision 0030): the payment domain enqueues rendered events; sockets close with it.
  const webhookSender = createWebhookSender(`token-sim/${packageVersion()}`);
  const webhooks = createWebhookDispatcher({
    send: webhookSender.send,
    onClose: webhookSender.close,
    onSettled: (item) => outbox?.settled(item),
  });
  // With Redis the queue is an outbox of records, committed with the change that made each event (decision 0039).
  const outbox = link
    ? createOutbox({
        dispatcher: webhooks,
        touch: (tenant, field) => replica?.touch(tenant, field),
        commit: (tenant) => replica?.run(tenant, () => undefined) ?? Promise.resolve(),
        afterCommit: (effect) => (replica ? replica.afterCommit(effect) : effect()),
        lease: (eventId, ms) => link.lease(eventId, processName ?? '', ms),
        pull: () => replica?.start() ?? Promise.resolve(),
      })
    : undefined;
  // Every payment event goes to the tenant's webhook receiver, if it has one, rendered as it happens
  // (decision 0030): delivery never blocks the request or the clock move that caused it.
  const sendEvent = (payment: Payment, event: PaymentEvent): void => {
    const url = webhookUrlFor(config, payment.tenant);
    if (url === undefined) return;
    const baseUrl = payment.origin ?? config.baseUrl ?? listeningUrl ?? `http://${config.host}:${config.port}`;
    const job = {
      tenant: payment.tenant,
      url,
      orderKey: `${payment.tenant}\u0000${payment.paymentId}`,
      eventId: ids.eventId(payment.tenant, payment.paymentId, event.seq),
      type: event.type,
      body: JSON.stringify(webhookEventBody({ baseUrl, refs: paymentRefs }, payment, event, ids.eventId(payment.tenant, payment.paymentId, event.seq))),
      mediaType: `application/vnd.${config.vendor}.events-v1.hal+json`,
    };
    // With a shared store, an event is recorded with the change that made it, and sent once that is committed.
    if (outbox) outbox.enqueue(job);
    else webhooks.enqueue(job);
  };
  const payments = createPayments({ clock: clocks, ids, store: paymentStore, settlementDelay: config.settlementDelay, onEvent: sendEvent });

  /** Creates the fixtures' tokens (of one tenant, or all); `strict` turns a refusal into a ConfigError. */
  function preloadFixtureTokens(tenant: string | undefined, strict: boolean): void {
    (config.fixtures.tokens ?? []).forEach((t, i) => {
      const username = t.username ?? defaultUser;
      if (tenant !== undefined && username !== tenant) return;
      try {
        createPreloaded(t, username);
      } catch (err) {
        const problem = problemOfRefusal(err);
        if (!problem) throw err;
        if (strict) throw new ConfigError(`fixtures token $.tokens[${i}] is refused: ${new SimulatorError(err).errorName} (${problem.message})`);
      }
    });
  }
  preloadFixtureTokens(undefined, true);

  if (options.scenarios && options.scenarios.length > 0) {
    try {
      activeScenarios.load(resolveScenarios(options.scenarios));
    } catch (err) {
      if (!problemOfRefusal(err)) throw err;
      throw new ConfigError(`invalid scenarios: ${new SimulatorError(err).message}`);
    }
  }
  const heldSockets = new Set<Socket>();
  // The live journal's open streams (decision 0034): the server ends them when it closes.
  const journalStreams = createJournalStreams();

  const siv = createSiv(secrets.keyObject('state-encryption'), secrets.keyObject('state-iv'), 1024);
  const controller = createController({
    clocks,
    store,
    journal,
    ids,
    siv,
    // After a reset the clock may have passed a fixture's fixed expiry: such a token is simply not restored.
    preload: (tenant) => {
      preloadFixtureTokens(tenant, false);
      activeScenarios.preload(tenant);
    },
    engine,
    scenarios: activeScenarios,
    profiles: activeScenarios,
    isTenant: (name) => config.credentials.has(name),
    clearWebhooks: (tenant) => {
      webhooks.clear(tenant);
      outbox?.clear(tenant);
    },
    payments: { store: paymentStore, catchUp: (tenant) => payments.catchUp(tenant) },
    // A whole reset (not one tenant's) is the answer to a lost store: health reports it no more.
    afterReset: (tenant) => {
      if (tenant === undefined) storeLost = undefined;
    },
  });

  if (config.stateFile !== undefined) restoreStateFile(config.stateFile, controller);
  if (link) {
    replica = createReplica({
      link,
      records: createRecords({
        store,
        payments: paymentStore,
        clocks,
        ids,
        engine,
        scenarios: activeScenarios,
        siv,
        extensionOf: (tenant) => activeScenarios.current(tenant).extension,
        ...(sharedJournal && { journal: sharedJournal }),
        ...(outbox && { outbox }),
      }),
      tenants: [...config.credentials.keys()],
      restart: () => controller.reset(),
      // Said once per loss in each process (decision 0041); `at` is the wall clock's, as in Redis's own log.
      lost: () => {
        storeLost = { at: new Date().toISOString() };
        metrics.storeReset();
        io.writeErr(
          'token-sim: the Redis store lost its state (Redis restarted empty or was flushed): the simulator started over ' +
            'from its configuration (fixtures, scenarios, --now); tokens and payments made before are gone',
        );
      },
      ...(sharedJournal && { onRead: () => sharedJournal.pull() }),
      onClose: () => {
        sharedJournal?.close();
        outbox?.close();
      },
    });
  }

  const media = mediaTypesFor(config.vendor);
  // One correlation header per simulator, named after the vendor (decision 0033).
  const correlation = createCorrelation(correlationHeaderFor(config.vendor), ids);
  const log = createRequestLogger({ format: config.log, write: io.writeErr, color: io.color ?? io.isTTY === true });
  // A bug's message may quote the request: card data in it is masked, as in every other line of the log.
  const reportUnexpected = (err: unknown): void =>
    io.writeErr(maskCardText(`token-sim: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
  const passwords = new Map([...config.credentials].map(([name, credential]) => [name, credential.password]));
  // One Basic check for the API and a tenant's own control plane (/_sim, decision 0026).
  const authenticate = createAuthenticator(passwords);
  const fallbackHost = `${config.host}:${config.port}`;
  const guard = createGuard({ host: config.host, baseUrl: config.baseUrl, allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins });
  const api = createApi({
    operations: {
      ...createTokenOperations({
        vault,
        refs,
        tokenMediaType: media.token,
        reads: createReadCache(),
        existing: createReadCache(),
        mayDetokenize: (tenant) => config.credentials.get(tenant)?.detokenize === true,
      }),
      sale: createSaleOperation({ sales, refs, media, payments, paymentRefs }),
      ...createPaymentOperations({ payments, refs: paymentRefs, media }),
    },
    media,
    authenticate,
    baseUrl: config.baseUrl,
    fallbackHost,
    scenario: {
      engine,
      clock: clocks,
      vault,
      refs,
      paymentOf(tenant, text) {
        const ref = paymentRefs.decode(text);
        return ref && ref.tenant === tenant ? paymentStore.get(tenant, ref.tokenId) : undefined;
      },
    },
    journal,
    metrics,
    clock: clocks,
    ids,
    correlation,
    log,
    heldSockets,
    reportUnexpected,
    ...(replica && { gate: replica }),
  });
  const controlApp = buildApp({
    controller,
    refs,
    correlation,
    log,
    baseUrl: config.baseUrl,
    fallbackHost,
    adminToken: config.adminToken,
    stateLimit: config.stateLimit,
    isTenant: (name) => config.credentials.has(name),
    authenticate,
    openApi: (baseUrl) => openApiDocument({ vendor: config.vendor, baseUrl, version: packageVersion() }),
    metrics,
    webhooks,
    dashboard: { tenants: () => [...config.credentials.keys()], clocks, payments, paymentStore, vault, journal, streams: journalStreams },
    reportUnexpected,
    storeHealth: async () =>
      replica ? { kind: 'redis', up: (await replica.status()).up, ...(storeLost && { state: 'reset', at: storeLost.at }) } : { kind: 'memory' },
    ...(replica && { shared: replica }),
    guard,
  });
  // Links in the library's token lists: the configured base URL, else the address listened on once known.
  let listeningUrl: string | undefined;
  const libraryBaseUrl = (): string => config.baseUrl ?? listeningUrl ?? `http://${fallbackHost}`;
  // One listener for every request: the API straight through its pipeline, /_sim to the control app (decision 0046).
  const listener = createListener(api, guard, controlApp);
  const sim: ComposedSimulator = {
    app: listener,
    listener,
    config,
    vault,
    ...controlFacade({
      controller,
      webhooks,
      isTenant: (name) => config.credentials.has(name),
      tokenList: (tokens) => controlTokenList(tokens, { baseUrl: libraryBaseUrl(), refs }) as ControlToken[],
      payments: (tenant) => paymentList(payments, paymentStore, tenant),
    }),
    heldSockets,
    sweepExpired: () => controller.sweepExpired(),
    storedTokens: () => store.size(),
    webhookDispatcher: webhooks,
    webhookUrlFor: (tenant) => webhookUrlFor(config, tenant),
  };
  listening.set(sim, (url) => void (listeningUrl = url));
  journalStreamsOf.set(sim, journalStreams);
  if (replica) sharedStores.set(sim, replica);
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

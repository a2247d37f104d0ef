/** One simulator's two HTTP surfaces, the simulated API and the control app, wired from its core (compose.ts). */
import type { Socket } from 'node:net';
import type { SimulatorConfig } from '../config/options.js';
import { packageVersion } from '../config/version.js';
import type { Metrics } from '../control/metrics.js';
import { createApi } from '../http/api.js';
import { buildApp } from '../http/app.js';
import { createAuthenticator } from '../http/auth.js';
import type { JournalStreams } from '../http/journal-stream.js';
import { correlationHeaderFor, createCorrelation } from '../http/correlation.js';
import { createGuard } from '../http/guard.js';
import { mediaTypesFor } from '../http/media.js';
import { openApiDocument } from '../http/openapi.js';
import { createReadCache } from '../http/present.js';
import { createRequestLogger } from '../http/request-log.js';
import type { IdSource } from '../infra/ids.js';
import { maskCardText } from '../wire/mask.js';
import type { Core, SimulatorIo } from './core.js';
import type { SharedControl } from './facade.js';

/** The request log, the unexpected-error report, authentication and the Host guard, shared by both apps. */
export function createEdges(config: SimulatorConfig, io: SimulatorIo, ids: IdSource) {
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
  return { correlation, log, reportUnexpected, authenticate, fallbackHost, guard };
}

export type Edges = ReturnType<typeof createEdges>;

export function createSimulatedApi(core: Core, edges: Edges, metrics: Metrics, heldSockets: Set<Socket>) {
  const { config, vault, refs, payments, paymentRefs, stores } = core;
  const media = mediaTypesFor(config.vendor);
  return createApi({
    operations: {
      vault,
      sales: core.sales,
      payments,
      refs,
      paymentRefs,
      media,
      reads: createReadCache(),
      existing: createReadCache(),
      mayDetokenize: (tenant) => config.credentials.get(tenant)?.detokenize === true,
      origins: new Map(),
    },
    authenticate: edges.authenticate,
    baseUrl: config.baseUrl,
    fallbackHost: edges.fallbackHost,
    scenario: {
      engine: core.engine,
      paymentOf(tenant, text) {
        const ref = paymentRefs.decode(text);
        return ref && ref.tenant === tenant ? stores.payments.get(tenant, ref.tokenId) : undefined;
      },
    },
    journal: stores.journal,
    metrics,
    clock: core.clocks,
    correlation: edges.correlation,
    log: edges.log,
    heldSockets,
    reportUnexpected: edges.reportUnexpected,
    ...(stores.replica && { gate: stores.replica }),
  });
}

/** The control app, with the calls the library shares (`control`, compose.ts). */
export function createControlApp(core: Core, edges: Edges, control: SharedControl, metrics: Metrics, journalStreams: JournalStreams) {
  const { config, stores } = core;
  return buildApp({
    ...control,
    refs: core.refs,
    correlation: edges.correlation,
    log: edges.log,
    baseUrl: config.baseUrl,
    fallbackHost: edges.fallbackHost,
    adminToken: config.adminToken,
    stateLimit: config.stateLimit,
    authenticate: edges.authenticate,
    openApi: (baseUrl) => openApiDocument({ vendor: config.vendor, baseUrl, version: packageVersion() }),
    metrics,
    dashboard: {
      tenants: () => [...config.credentials.keys()],
      clocks: core.clocks,
      payments: core.payments,
      paymentStore: stores.payments,
      vault: core.vault,
      journal: stores.journal,
      streams: journalStreams,
    },
    reportUnexpected: edges.reportUnexpected,
    storeHealth: () => stores.health(),
    ...(stores.replica && { shared: stores.replica }),
    guard: edges.guard,
  });
}

/** One simulator's node:http(s) server: its certificates (contract 4.3, 4.4), no webhook loops (decision 0042), a draining shutdown. */
import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { SimulatorConfig, SimulatorOptions } from '../config/options.js';
import { ConfigError } from '../config/fixtures.js';
import { readPem } from '../config/tls.js';
import { certificateNames, localCertificate, localClientCertificate, type PemPair } from '../infra/certificates.js';
import { createSimulator, type ComposedSimulator } from './compose.js';
import { stderrIo, type SimulatorIo } from './core.js';
import type { RunningSimulator } from './facade.js';

/** Client timeouts and the sweep's period (decision 0023); tests shorten them. Checked twice a second: node's 30 s let a client overstay by as much. */
const SERVER_TIMING = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 500,
  sweepEveryMs: 60_000,
};

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** An address of this machine, or one that means "this machine" to a client (loopback, unspecified). */
function isOwnAddress(address: string): boolean {
  const plain = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  if (/^127\./.test(plain) || plain === '::1' || plain === '0.0.0.0' || plain === '::') return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address.toLowerCase() === plain) === true);
}

/** Whether a URL is the simulator's own --base-url, or reaches `port` on this machine (by its address, or what its name resolves to). */
async function namesListener(text: string, port: number, baseUrl: string | undefined): Promise<boolean> {
  const url = new URL(text);
  if (baseUrl !== undefined && url.origin === new URL(baseUrl).origin) return true;
  const urlPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (urlPort !== port) return false;
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(name) !== 0) return isOwnAddress(name);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const found = await lookup(name, { all: true }).catch(() => []);
  return found.some((a) => isOwnAddress(a.address));
}

/** The line refusing the first webhook URL (--webhook-url, a credential's) that names this listener; undefined when none does. */
async function webhookLoop(config: SimulatorConfig, port: number): Promise<string | undefined> {
  const credentials = [...config.credentials].map(([name, credential]) => [`the fixtures credential '${name}' webhookUrl`, credential.webhookUrl] as const);
  for (const [where, url] of [['--webhook-url', config.webhookUrl] as const, ...credentials]) {
    if (url !== undefined && (await namesListener(url, port, config.baseUrl))) {
      return `${where} ${url} names this simulator's own listener (port ${port}): each payment event would be sent to the simulator itself; point it at your webhook receiver`;
    }
  }
  return undefined;
}

/** --tls-cert and --tls-key, or the local CA's certificate (with its file) naming localhost, 127.0.0.1, ::1, --host and the --base-url host. */
export async function serverCertificate(config: Pick<SimulatorConfig, 'tls' | 'host' | 'baseUrl'>): Promise<(PemPair & { caFile: string | undefined }) | undefined> {
  const { tls } = config;
  if (tls === undefined) return undefined;
  if (tls.kind === 'given') {
    return { cert: readPem('--tls-cert', tls.certFile, 'CERTIFICATE'), key: readPem('--tls-key', tls.keyFile, 'PRIVATE KEY'), caFile: undefined };
  }
  const names = certificateNames(['localhost', '127.0.0.1', '::1', config.host, config.baseUrl === undefined ? undefined : new URL(config.baseUrl).hostname]);
  return localCertificate(tls.dir, names);
}

/** With --tls's local CA, no --webhook-client-cert and a webhook receiver: the client certificate it issues for deliveries (decision 0056). */
export async function localWebhookClient(config: Pick<SimulatorConfig, 'tls' | 'webhookClient' | 'webhookUrl' | 'credentials'>): Promise<PemPair | undefined> {
  const { tls } = config;
  if (tls?.kind !== 'local' || config.webhookClient !== undefined) return undefined;
  const receivers = config.webhookUrl !== undefined || [...config.credentials.values()].some((c) => c.webhookUrl !== undefined);
  if (!receivers) return undefined;
  const { cert, key } = await localClientCertificate(tls.dir);
  return { cert, key };
}

/** A running simulator with its internals and its node:http server: what the CLI and tests start (src/index.ts hands out only the RunningSimulator). */
export type StartedSimulator = ComposedSimulator & RunningSimulator & { readonly server: Server };

/** The node:http server, or node:https with --tls (the same options, the same listener); the local CA's webhook client certificate given to the simulator. */
async function listenerServer(sim: ComposedSimulator, timing: typeof SERVER_TIMING, listener: RequestListener): Promise<{ server: Server; caFile: string | undefined }> {
  const options = { headersTimeout: timing.headersMs, requestTimeout: timing.requestMs, keepAliveTimeout: timing.keepAliveMs, connectionsCheckingInterval: timing.checkEveryMs };
  const tls = await serverCertificate(sim.config);
  const client = await localWebhookClient(sim.config);
  if (client) sim.webhookClient(client);
  if (tls === undefined) return { server: createServer(options, listener), caFile: undefined };
  try {
    // An https.Server is a tls.Server that serves HTTP: every member the server and tests use is there.
    return { server: createHttpsServer({ ...options, cert: tls.cert, key: tls.key }, listener) as unknown as Server, caFile: tls.caFile };
  } catch (err) {
    throw new ConfigError(`the TLS certificate and key cannot serve: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Starts a simulator and resolves once its port is listening. */
export async function startSimulator(
  options: SimulatorOptions = {},
  io: SimulatorIo = stderrIo,
  timing = SERVER_TIMING,
): Promise<StartedSimulator> {
  const sim = createSimulator(options, io);
  const { stateSaver: saver, replica: shared } = sim;
  // With --state-file, every answered request may have changed the state: the next periodic save writes it.
  const listener: RequestListener = saver
    ? (req, res) => {
        res.once('close', () => saver.touch());
        sim.listener(req, res);
      }
    : sim.listener;
  // What was opened before the server serves: closed again when it cannot.
  const abandon = async (): Promise<void> => {
    sim.webhookDispatcher.close();
    await shared?.close();
  };
  const { server, caFile } = await listenerServer(sim, timing, listener).catch(async (err: unknown) => {
    await abandon();
    throw err;
  });
  server.listen(sim.config.port, sim.config.host);
  // events.once rejects when the server emits 'error' first (a port in use).
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  // A webhook URL naming this very listener would loop (decision 0042): refused before anything is served.
  const loop = await webhookLoop(sim.config, port);
  if (loop !== undefined) {
    server.close();
    await once(server, 'close');
    await abandon();
    throw new ConfigError(loop);
  }
  const host = sim.config.host.includes(':') ? `[${sim.config.host}]` : sim.config.host;
  if (!isLoopback(sim.config.host) && sim.config.adminToken === undefined) {
    io.writeErr(
      `token-sim: warning: listening on ${sim.config.host}, reachable from other machines, and /_sim (which can reset, ` +
        'import and rewrite all state) has no --admin-token; it is a sandbox for test card data, not a vault for real cards',
    );
  }
  const url = `${sim.config.tls ? 'https' : 'http'}://${host}:${port}`;
  sim.listening(url);
  // A shared store is joined now; until Redis answers, calls answer 503 (contract 3.5).
  if (shared) {
    await shared.start().catch((err: unknown) => {
      io.writeErr(`token-sim: warning: ${err instanceof Error ? err.message : String(err)}; API calls answer 503 serviceUnavailable until it answers`);
    });
  }
  // A following clock moves on its own: what expires meanwhile is swept now and then.
  const sweeper = setInterval(() => sim.sweepExpired(), timing.sweepEveryMs);
  sweeper.unref();
  saver?.start();
  let closing: Promise<void> | undefined;
  return {
    ...sim,
    url,
    server,
    caFile,
    close: () => (closing ??= shutDown(sim, server, sweeper)),
  };
}

/** Stops accepting; lets requests in flight finish, closing each kept-alive connection once idle; then stops the rest. */
async function shutDown(sim: ComposedSimulator, server: Server, sweeper: NodeJS.Timeout): Promise<void> {
  clearInterval(sweeper);
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  // The drain is bounded (--drain-timeout): then what is still open is cut. Timers take at most 2^31-1 ms (24.8 days).
  const cut = setTimeout(() => server.closeAllConnections(), Math.min(sim.config.drainTimeoutMs, 2 ** 31 - 1));
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  // An open live-journal stream never ends by itself: end it, so that it cannot hold the shutdown (decision 0034).
  sim.journalHub.closeAll();
  // A `noResponse` fault would otherwise hold the server open until the client gives up.
  for (const socket of sim.heldSockets) socket.destroy();
  await closed;
  clearInterval(sweep);
  clearTimeout(cut);
  // Once no request can enqueue more, webhook retries and deliveries in flight stop (decision 0030).
  sim.webhookDispatcher.close();
  // Once the last request has finished, the state is saved a last time (when it changed).
  await sim.stateSaver?.stop();
  await sim.replica?.close();
}

/** The server of one simulator: the node:http lane on a port, and a shutdown that lets requests finish. */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SimulatorOptions } from '../config/options.js';
import { ConfigError } from '../config/fixtures.js';
import { webhookLoop } from './webhook-loop.js';
import { createSimulator, internals, type Internals } from './compose.js';
import { stderrIo, type SimulatorIo } from './core.js';
import type { ComposedSimulator, RunningSimulator } from './facade.js';
import { localWebhookClient, serverCertificate } from './tls.js';

/**
 * How long a client may take, and how often expired tokens are swept (decision 0023); tests shorten them. A
 * slow or stalled client cannot hold a socket for ever: headers within 10 s, the whole request in 30 s (the
 * answer may take longer), checked twice a second (node's default, 30 s, let a client overstay by as much).
 */
const SERVER_TIMING = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 500,
  sweepEveryMs: 60_000,
};
export type ServerTiming = typeof SERVER_TIMING;

/** The longest delay setTimeout takes (about 24.8 days); a longer drain is, in practice, unbounded. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A running simulator with its internals and its node:http server: what the CLI and tests start (src/index.ts hands out only the RunningSimulator). */
export interface StartedSimulator extends ComposedSimulator, RunningSimulator {
  readonly server: Server;
}

/** The node:http server, or node:https with --tls: the same options, the same listener. */
async function listenerServer(sim: ComposedSimulator, timing: ServerTiming, listener: RequestListener): Promise<{ server: Server; caFile: string | undefined }> {
  const options = { headersTimeout: timing.headersMs, requestTimeout: timing.requestMs, keepAliveTimeout: timing.keepAliveMs, connectionsCheckingInterval: timing.checkEveryMs };
  const tls = await serverCertificate(sim.config);
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
  timing: ServerTiming = SERVER_TIMING,
): Promise<StartedSimulator> {
  const sim = createSimulator(options, io);
  // With --state-file, every answered request may have changed the state: the next periodic save writes it.
  const own = internals.get(sim) as Internals;
  const { stateSaver: saver, replica: shared } = own;
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
  let made: Awaited<ReturnType<typeof listenerServer>>;
  try {
    made = await listenerServer(sim, timing, listener);
    // With --tls's local CA, webhook deliveries present a client certificate it issued (decision 0056).
    const client = await localWebhookClient(sim.config);
    if (client) own.webhookClient(client);
  } catch (err) {
    await abandon();
    throw err;
  }
  const { server, caFile } = made;
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
  own.listening(url);
  // A shared store is joined now (seeded, or its state adopted); if Redis is not there yet, calls answer 503
  // until it is (contract 3.5).
  if (shared) {
    await shared.start().catch((err: unknown) => {
      io.writeErr(`token-sim: warning: ${err instanceof Error ? err.message : String(err)}; API calls answer 503 serviceUnavailable until it answers`);
    });
  }
  // A following clock moves on its own: what expires meanwhile is swept now and then. No request waits on it.
  const sweeper = setInterval(() => sim.sweepExpired(), timing.sweepEveryMs);
  sweeper.unref();
  saver?.start();
  let closing: Promise<void> | undefined;
  return {
    ...sim,
    url,
    server,
    caFile,
    close: () => (closing ??= shutDown(sim, server, sweeper, own)),
  };
}

/**
 * Stops accepting; lets requests in flight (scripted delays included) finish, closing each kept-alive
 * connection as soon as it falls idle rather than waiting for its keep-alive timeout; then stops the rest.
 */
async function shutDown(sim: ComposedSimulator, server: Server, sweeper: NodeJS.Timeout, own: Internals): Promise<void> {
  clearInterval(sweeper);
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  // The drain is bounded (--drain-timeout): then what is still open is cut. Timers take at most 2^31-1 ms.
  const cut = setTimeout(() => server.closeAllConnections(), Math.min(sim.config.drainTimeoutMs, MAX_TIMER_MS));
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  // An open live-journal stream never ends by itself: end it, so that it cannot hold the shutdown (decision 0034).
  own.journalStreams.closeAll();
  // A `noResponse` fault would otherwise hold the server open until the client gives up.
  for (const socket of sim.heldSockets) socket.destroy();
  await closed;
  clearInterval(sweep);
  clearTimeout(cut);
  // Once no request can enqueue more, webhook retries and deliveries in flight stop (decision 0030).
  sim.webhookDispatcher.close();
  // Once the last request has finished, the state is saved a last time (when it changed).
  await own.stateSaver?.stop();
  await own.replica?.close();
}

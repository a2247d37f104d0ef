/** The server of one simulator: the node:http lane on a port, and a shutdown that lets requests finish. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorOptions } from '../config/options.js';
import { createSimulator, listening, stderrIo, type SimulatorIo } from './compose.js';
import type { ComposedSimulator } from './facade.js';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export interface RunningSimulator extends ComposedSimulator {
  /** e.g. `http://127.0.0.1:54321` */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Starts a simulator and resolves once its port is listening. */
export async function startSimulator(options: SimulatorOptions = {}, io: SimulatorIo = stderrIo): Promise<RunningSimulator> {
  const sim = createSimulator(options, io);
  const server = createServer(sim.listener);
  // A slow or stalled client cannot hold a socket for ever: headers within 10 s, the whole request in 30 s.
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.listen(sim.config.port, sim.config.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([err]: unknown[]) => Promise.reject(err as Error)),
  ]);
  const { port } = server.address() as AddressInfo;
  const host = sim.config.host.includes(':') ? `[${sim.config.host}]` : sim.config.host;
  if (!isLoopback(sim.config.host) && sim.config.adminToken === undefined) {
    io.writeErr(
      `token-sim: warning: listening on ${sim.config.host}, reachable from other machines, and /_sim (which can reset, ` +
        'import and rewrite all state) has no --admin-token; it is a sandbox for test card data, not a vault for real cards',
    );
  }
  const url = `http://${host}:${port}`;
  listening.get(sim)?.(url);
  let closing: Promise<void> | undefined;
  return {
    ...sim,
    url,
    server,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Stop accepting; let requests in flight (scripted delays included) finish; close each kept-alive
        // connection as soon as it falls idle rather than waiting for its keep-alive timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
        // A `noResponse` fault would otherwise hold the server open until the client gives up.
        for (const socket of sim.heldSockets) socket.destroy();
      });
      return closing;
    },
  };
}

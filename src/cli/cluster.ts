/** `--workers <n>`: this process becomes the node:cluster primary of n workers (worker.ts) sharing the port (decision 0038). */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config/fixtures.js';
import type { SimulatorOptions } from '../config/options.js';
import type { CliIo } from './io.js';

/** What the primary hands each worker over IPC (not argv or the environment: the options may hold secrets). */
export interface WorkerStart {
  options: SimulatorOptions;
  /** Scenario files to reload on change (--watch). */
  watch: readonly string[];
  isTTY: boolean;
  color: boolean;
}

export type WorkerMessage =
  | { kind: 'waiting' }
  /** A line written while starting: the primary prints each distinct one once, so n workers are not n times as loud. */
  | { kind: 'line'; line: string }
  | { kind: 'ready'; url: string }
  /** It could not start (port in use, bad scenario file…): the line to print. */
  | { kind: 'failed'; line: string };

/** A worker that dies after it started is replaced after this long. */
const RESTART_DELAY_MS = 1000;
/** Exit code for bad options and start-up failures (the primary's, a worker's, a single simulator's). */
export const USAGE_ERROR = 2;

const WORKER_SCRIPT = fileURLToPath(new URL('./worker.js', import.meta.url));

const how = (code: number | null, signal: string | null): string => (signal !== null ? `signal ${signal}` : `exit code ${code ?? '?'}`);

/** Why a simulator could not start, as the one line the CLI prints (the primary and each worker alike). */
export function describeStartError(err: unknown, options: SimulatorOptions): string {
  if (err instanceof ConfigError) return err.message;
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${options.host ?? '127.0.0.1'}:${options.port ?? 8080}`;
  if (code === 'EADDRINUSE') return `port ${options.port} is already in use on ${options.host}`;
  if (code === 'EACCES') return `no permission to listen on ${where}`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot bind to ${where}: no such address`;
  return `cannot start: ${err instanceof Error ? err.message : String(err)}`;
}

/** Starts `count` workers; `onListening` runs once when all of them listen, with the URL they share. */
export function runCluster(count: number, start: WorkerStart, io: CliIo, onListening: (url: string) => void): void {
  cluster.setupPrimary({ exec: WORKER_SCRIPT, args: [] });
  const live = new Map<number, Worker>();
  const ready = new Set<number>();
  const printed = new Set<string>();
  let listening = false;
  let stopping: number | undefined;

  const stopAll = (code: number): void => {
    if (stopping !== undefined) return;
    stopping = code;
    // Each worker drains its requests in flight (--drain-timeout) and exits; a second signal to the same
    // worker (Ctrl+C reaches the whole process group) changes nothing.
    for (const worker of live.values()) worker.process.kill('SIGTERM');
    if (live.size === 0) io.exit(code);
  };

  const fork = (): void => {
    const worker = cluster.fork();
    live.set(worker.id, worker);
    let failure: string | undefined;
    worker.on('message', (message: WorkerMessage) => {
      if (message.kind === 'waiting') worker.send(start);
      else if (message.kind === 'failed') failure = message.line;
      else if (message.kind === 'line' && !printed.has(message.line)) {
        printed.add(message.line);
        io.err(message.line);
      } else if (message.kind === 'ready') {
        ready.add(worker.id);
        if (!listening && ready.size === count) {
          listening = true;
          onListening(message.url);
        }
      }
    });
    worker.on('exit', (code: number | null, signal: string | null) => {
      live.delete(worker.id);
      const started = ready.delete(worker.id);
      if (stopping !== undefined) {
        if (live.size === 0) io.exit(stopping);
      } else if (!started) {
        // A worker that cannot start would not start the next time either: stop, no restart loop.
        io.err(failure ?? `token-sim: a worker stopped while starting (${how(code, signal)})`);
        stopAll(USAGE_ERROR);
      } else {
        io.err(`token-sim: worker ${worker.process.pid} stopped unexpectedly (${how(code, signal)}); starting another in 1s`);
        setTimeout(() => {
          if (stopping === undefined) fork();
        }, RESTART_DELAY_MS);
      }
    });
  };

  io.onStopSignal(() => stopAll(0));
  for (let i = 0; i < count; i += 1) fork();
}

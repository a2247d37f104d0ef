/**
 * `--watch`: reloads the scenario files when one changes; an invalid change keeps the previous set. Polls their
 * times and sizes: fs.watch loses a file an editor saves by renaming a new one over it, and fs.watchFile takes
 * its first look later, on libuv's pool, missing a change made at once; this one looks before it returns.
 */
import { statSync } from 'node:fs';
import type { Simulator } from '../simulator/facade.js';
import type { StartedSimulator } from '../simulator/server.js';
import type { CliIo } from './io.js';

const POLL_MS = 200;

/** A file's modification time and size; '-' when it cannot be read (its return is a change too). */
function stamp(file: string): string {
  try {
    const { mtimeMs, size } = statSync(file);
    return `${mtimeMs}:${size}`;
  } catch {
    return '-';
  }
}

export function watchScenarioFiles(sim: Simulator, files: readonly string[], report: (line: string) => void): () => void {
  const reload = (): void => {
    try {
      sim.loadScenarios(...files);
      report(`token-sim: reloaded ${sim.scenarios().length} scenario(s) from ${files.join(', ')}`);
    } catch (err) {
      report(`token-sim: kept the previous scenarios: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const stamps = files.map(stamp);
  const timer = setInterval(() => {
    const now = files.map(stamp);
    if (now.some((s, i) => s !== stamps[i])) {
      stamps.splice(0, stamps.length, ...now);
      reload();
    }
  }, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** A started simulator (the only one, or a worker) until a stop signal: --watch's reloads, then a drain and exit 0. */
export function serveUntilStopped(running: StartedSimulator, watched: readonly string[], io: Pick<CliIo, 'err' | 'exit' | 'onStopSignal'>): void {
  const stopWatching = watched.length > 0 ? watchScenarioFiles(running, watched, io.err) : () => undefined;
  io.onStopSignal(() => {
    stopWatching();
    // close() drains for at most --drain-timeout, then cuts what is left; a second signal gets the same close.
    void running.close().then(() => io.exit(0));
  });
}

/**
 * `--watch`: reloads the scenario files when one changes; an invalid change keeps the previous set. Polls their
 * times and sizes: fs.watch loses a file an editor saves by renaming a new one over it, and fs.watchFile takes
 * its first look later, on libuv's pool, missing a change made at once; this one looks before it returns.
 */
import { statSync } from 'node:fs';
import type { Simulator } from '../simulator/facade.js';

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

/**
 * `--watch`: reloads the scenario files when one changes; an invalid change keeps the previous set.
 * Polls the files' modification times rather than using fs.watch, which loses a file that an editor
 * saves by writing a new file and renaming it over the old one.
 */
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Simulator } from '../simulator/facade.js';

const POLL_MS = 200;

export function watchScenarioFiles(sim: Simulator, files: readonly string[], report: (line: string) => void): () => void {
  const reload = (): void => {
    try {
      sim.loadScenarios(...files);
      report(`token-sim: reloaded ${sim.scenarios().length} scenario(s) from ${files.join(', ')}`);
    } catch (err) {
      report(`token-sim: kept the previous scenarios: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const onChange = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) reload();
  };
  for (const file of files) watchFile(file, { interval: POLL_MS, persistent: false }, onChange);
  return () => {
    for (const file of files) unwatchFile(file, onChange);
  };
}

/** `--watch`: reloads the scenario files when one changes; an invalid change keeps the previous set. */
import { watch, type FSWatcher } from 'node:fs';
import type { Simulator } from '../simulator.js';

const SETTLE_MS = 100;

export function watchScenarioFiles(sim: Simulator, files: readonly string[], report: (line: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const reload = (): void => {
    try {
      sim.loadScenarios(...files);
      report(`token-sim: reloaded ${sim.scenarios().length} scenario(s) from ${files.join(', ')}`);
    } catch (err) {
      report(`token-sim: kept the previous scenarios: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const watchers: FSWatcher[] = files.map((file) =>
    watch(file, () => {
      // Editors write in bursts (truncate, write, rename): wait for the file to settle.
      clearTimeout(timer);
      timer = setTimeout(reload, SETTLE_MS);
    }),
  );
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}

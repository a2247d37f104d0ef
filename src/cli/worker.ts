/**
 * One `--workers` process (cluster.ts forks it; an entry point, so it acts on import): asks the primary for its
 * options, starts the simulator on the shared port and reports back; its lines while it starts go to the primary
 * (which prints each distinct one once), then it logs as a single simulator does. SIGINT/SIGTERM: drain, exit 0.
 */
import { describeStartError, type WorkerMessage, type WorkerStart } from './cluster.js';
import { watchScenarioFiles } from './watch.js';
import { startSimulator, type StartedSimulator } from '../simulator/server.js';

const tell = (message: WorkerMessage, then: () => void = () => undefined): void => void process.send?.(message, then);
const writeErr = (line: string): void => void process.stderr.write(`${line}\n`);

async function serve({ options, watch, isTTY, color }: WorkerStart): Promise<void> {
  let started = false;
  let running: StartedSimulator;
  try {
    running = await startSimulator(options, { writeErr: (line) => (started ? writeErr(line) : tell({ kind: 'line', line })), isTTY, color });
  } catch (err) {
    tell({ kind: 'failed', line: `token-sim: ${describeStartError(err, options)}` }, () => process.exit(2));
    return;
  }
  const stopWatching = watch.length > 0 ? watchScenarioFiles(running, watch, writeErr) : () => undefined;
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    stopWatching();
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  started = true;
  tell({ kind: 'ready', url: running.url });
}

process.once('message', (start: WorkerStart) => void serve(start));
tell({ kind: 'waiting' });

/** One `--workers` process (decision 0038), forked by cluster.ts: an entry point, so it acts on import. */
import { USAGE_ERROR, describeStartError, type WorkerMessage, type WorkerStart } from './cluster.js';
import { processIo } from './io.js';
import { serveUntilStopped } from './watch.js';
import { startSimulator, type StartedSimulator } from '../simulator/server.js';

const tell = (message: WorkerMessage, then: () => void = () => undefined): void => void process.send?.(message, then);

async function serve({ options, watch, isTTY, color }: WorkerStart): Promise<void> {
  let started = false;
  let running: StartedSimulator;
  try {
    running = await startSimulator(options, { writeErr: (line) => (started ? processIo.err(line) : tell({ kind: 'line', line })), isTTY, color });
  } catch (err) {
    tell({ kind: 'failed', line: `token-sim: ${describeStartError(err, options)}` }, () => process.exit(USAGE_ERROR));
    return;
  }
  serveUntilStopped(running, watch, processIo);
  started = true;
  tell({ kind: 'ready', url: running.url });
}

process.once('message', (start: WorkerStart) => void serve(start));
tell({ kind: 'waiting' });

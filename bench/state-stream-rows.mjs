// The snapshot row of `npm run bench` (issue 13, defect 3): GET token latency while `GET /_sim/state` streams a
// large snapshot out of the same token-sim. The export is read again as soon as it ends, for the whole measured
// run, so every GET in it competes with an export; each export's bytes are counted and thrown away.
import { get } from 'node:http';
import { DURATION, WARMUP, load, requests, settle } from './harness.mjs';

/** GET /_sim/state, read to its end: the bytes received. */
function exportOnce(server) {
  return new Promise((resolve, reject) => {
    get(`${server.url}/_sim/state`, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET /_sim/state answered ${res.statusCode}`));
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** Connections of the GET load: as many as a test suite's workers might hold, well under the throughput rows' 32. */
export const STREAM_CONNECTIONS = 8;

/** GET `href` for DURATION while snapshots stream back to back: p99, req/s and the exports completed. */
export async function stateStreamRow(server, href) {
  await settle([server]);
  await load(server, requests.get(href), { duration: WARMUP, connections: STREAM_CONNECTIONS });
  await settle([server]);
  let running = true;
  let exports = 0;
  let bytes = 0;
  const exporting = (async () => {
    while (running) {
      bytes = await exportOnce(server);
      exports++;
    }
  })();
  const r = await load(server, requests.get(href), { duration: DURATION, connections: STREAM_CONNECTIONS });
  running = false;
  await exporting;
  return { p99: r.latency.p99, rps: r.requests.total / r.duration, exports, bytes };
}

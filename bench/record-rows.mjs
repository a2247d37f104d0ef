// The recording row of `npm run bench` (issue 27): what `token-sim record` adds to each answer. One token-sim,
// one recorder in front of it (both CLI processes), and GETs of one token sent one at a time on a kept-alive
// connection, alternately straight and through the recorder: the difference of the two medians is the proxy's
// added latency per answer (target ≤ 1 ms). One at a time, so that no queueing is measured, only the proxy.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basic, createToken, median, SMOKE, spawnServer, stop, tokenSimArgs } from './harness.mjs';

const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = basic('merchant', 'secret');
const ROUNDS = SMOKE ? 200 : 3000;

/** One GET on a kept-alive connection: its time in ms. */
function timedGet(agent, url) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { Authorization: AUTH, Accept: TOKEN } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`GET ${url} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The medians straight and through the recorder, and what the recorder adds (ms). */
export async function recordRows(cli, fixtures) {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-bench-record-'));
  const sim = await spawnServer('token-sim', cli, tokenSimArgs(fixtures));
  const proxy = await spawnServer('token-sim record', cli, ['record', '--upstream', sim.url, '--port', '0', '--out', join(dir, 'bench.har')]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const path = new URL((await createToken(sim, '4444333322221111')).href).pathname;
    const straight = [];
    const through = [];
    for (let i = 0; i < ROUNDS; i++) {
      straight.push(await timedGet(agent, sim.url + path));
      through.push(await timedGet(agent, proxy.url + path));
    }
    // The first tenth warms both up.
    const kept = (xs) => xs.slice(Math.floor(xs.length / 10));
    const direct = median(kept(straight));
    const proxied = median(kept(through));
    return { direct, proxied, added: proxied - direct };
  } finally {
    agent.destroy();
    await stop(proxy);
    await stop(sim);
    rmSync(dir, { recursive: true, force: true });
  }
}

// npm run bench:ab:redis -- <baseline-dir> [--smoke]: npm run bench:ab's throughput operations on the Redis store
// (decision 0080): this build's token-sim and another build's (the bin/token-sim.js of <baseline-dir>, built), one
// process each on one redis-server under their own key prefixes, interleaved (baseline, current, current,
// baseline). Each figure is current / baseline; it holds when current keeps at least 95 % of the baseline's.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, children, compare, describe, log, mainFixtures, seedMain, spawnServer, stop, throughputOps, tokenSimArgs, warmUp } from './harness.mjs';
import { startRedis } from './redis-rows.mjs';

const dir = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const BASELINE_CLI = dir && join(resolve(dir), 'bin/token-sim.js');
if (!BASELINE_CLI || !existsSync(BASELINE_CLI) || !existsSync(join(resolve(dir), 'dist/index.js'))) {
  process.stderr.write('usage: npm run bench:ab:redis -- <baseline-dir> [--smoke]\n<baseline-dir>: another checkout of token-sim, built\n');
  process.exit(2);
}
const redis = await startRedis(children);
if (redis.skipped) {
  log(redis.skipped);
  process.exit(0);
}
const fixtures = mainFixtures();
const store = (prefix) => ['--store', redis.url, '--store-prefix', prefix];
const baseline = await spawnServer('baseline', BASELINE_CLI, [...tokenSimArgs(fixtures), ...store('ab-baseline:')]);
const current = await spawnServer('current', fileURLToPath(new URL('../bin/token-sim.js', import.meta.url)), [...tokenSimArgs(fixtures), ...store('ab-current:')]);
const builds = [baseline, current];
for (const server of builds) server.href = (await seedMain(server)).href;
for (const server of builds) await warmUp(server, server.href);
const opsOf = new Map(builds.map((server) => [server, throughputOps(server.href)]));
let held = 0;
for (const [i, { name }] of throughputOps(baseline.href).entries()) {
  const m = await compare(builds, (server) => opsOf.get(server)[i].request);
  const [b, c] = builds.map((server) => m.get(server));
  const ratio = c.rps / b.rps;
  if (ratio >= 0.95) held++;
  log(`${ratio >= 0.95 ? 'ok  ' : 'MISS'} ${name}, Redis store: ${ratio.toFixed(3)} × baseline (current ${describe(c)}; baseline ${describe(b)})`);
}
for (const server of builds) await stop(server);
await redis.stop();
const total = throughputOps(baseline.href).length;
log(`${held} of ${total} figures within 5 %${SMOKE ? ' (smoke: the figures are not checked)' : ''}`);
process.exit(SMOKE || held === total ? 0 : 1);

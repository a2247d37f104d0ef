// npm run bench:ab -- <baseline-dir> [--redis] [--smoke]: this build's token-sim against another build's (the
// bin/token-sim.js of <baseline-dir>, another checkout, built), interleaved in one run. Both are spawned as
// npm run bench spawns its main token-sim (same fixtures, options, tokens and warm-up); each throughput
// operation of npm run bench is measured on both (baseline, current, current, baseline), then GET with
// journal-stream clients against none, then CLI spawn → first 200. With --redis, both run on one redis-server
// (own key prefixes) and only the throughput operations are measured (decision 0080). Each figure is the ratio
// current / baseline; it holds ("ok") when current keeps at least 95 % of the baseline's throughput (spawn: takes
// at most 5 % longer). The full run exits 1 when a figure misses; --smoke runs briefly and checks nothing.
import { existsSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONNECTIONS,
  children,
  DURATION,
  SMOKE,
  WARMUP,
  combine,
  compare,
  describe,
  log,
  mainFixtures,
  median,
  ms,
  openJournalStream,
  requests,
  seedMain,
  spawnMain,
  spawnToFirst200,
  stop,
  throughputOps,
  warmThenRun,
  warmUp,
} from './harness.mjs';
import { startRedis } from './redis-rows.mjs';

const dir = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const BASELINE_CLI = dir && join(resolve(dir), 'bin/token-sim.js');
if (!BASELINE_CLI || !existsSync(BASELINE_CLI) || !existsSync(join(resolve(dir), 'dist/index.js'))) {
  process.stderr.write(`usage: npm run bench:ab -- <baseline-dir> [--redis] [--smoke]\n<baseline-dir>: another checkout of token-sim, built (bin/token-sim.js and dist/)${dir ? `; ${dir} has not both` : ''}\n`);
  process.exit(2);
}
const CURRENT_CLI = fileURLToPath(new URL('../bin/token-sim.js', import.meta.url));
/** A figure holds when current keeps this share of the baseline's throughput. */
const KEPT = 0.95;
const STREAMS = 10;
const STARTS = SMOKE ? 3 : 10;
const started = performance.now();

log(
  `token-sim A/B benchmark${SMOKE ? ' (smoke)' : ''}: baseline ${BASELINE_CLI}, current ${CURRENT_CLI}; ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), ` +
    `Node ${process.version}; ${CONNECTIONS} connections; each build's mean of two ${DURATION / 2} s runs (baseline, current, current, baseline), each after ${WARMUP / 2} s of warm-up`,
);
const holds = [];
/** A figure: `ratio` is current / baseline, the better the higher unless `lowerIsBetter`. */
function record(figure, ratio, detail, lowerIsBetter = false) {
  const ok = lowerIsBetter ? ratio <= 2 - KEPT : ratio >= KEPT;
  holds.push(ok);
  log(`${ok ? 'ok  ' : 'MISS'} ${figure}: ${ratio.toFixed(3)} × baseline (${detail})`);
}

const REDIS = process.argv.includes('--redis');
const redis = REDIS ? await startRedis(children) : undefined;
if (redis?.skipped) {
  log(redis.skipped);
  process.exit(0);
}
const storeOf = (prefix) => (redis ? ['--store', redis.url, '--store-prefix', prefix] : []);
const fixtures = mainFixtures();
const baseline = await spawnMain('baseline', BASELINE_CLI, fixtures, storeOf('ab-baseline:'));
const current = await spawnMain('current', CURRENT_CLI, fixtures, storeOf('ab-current:'));
const builds = [baseline, current];
for (const server of builds) server.href = (await seedMain(server)).href;
for (const server of builds) await warmUp(server, server.href);

// 1. The throughput operations: each build its own token (the same seed gives both the same).
const opsOf = new Map(builds.map((server) => [server, throughputOps(server.href)]));
for (const [i, { name }] of throughputOps(baseline.href).entries()) {
  const m = await compare(builds, (server) => opsOf.get(server)[i].request);
  for (const server of builds) log(`     ${name}, ${server.name}: ${describe(m.get(server))}`);
  const [b, c] = builds.map((server) => m.get(server));
  record(
    `${name} throughput${REDIS ? ', Redis store' : ''}`,
    c.rps / b.rps,
    `${c.rps.toFixed(0)} vs ${b.rps.toFixed(0)} req/s; p99 ${ms(c.p99)} vs ${ms(b.p99)} ms, ${(c.p99 / Math.max(b.p99, 1)).toFixed(2)} ×; ` +
      `server CPU ${c.cpuUs.toFixed(0)} vs ${b.cpuUs.toFixed(0)} µs/answer, ${(c.cpuUs / b.cpuUs).toFixed(2)} ×`,
  );
}

if (REDIS) {
  for (const server of builds) await stop(server);
  await redis.stop();
  finish();
}

// 2. GET with STREAMS journal-stream clients against none, on each build: none, STREAMS, STREAMS, none,
//    the builds alternated (b c, c b, b c, c b). The figure compares the two builds' ratios.
const streamed = new Map(builds.map((server) => [server, new Map([0, STREAMS].map((n) => [n, { runs: [], events: 0 }]))]));
for (const [round, n] of [0, STREAMS, STREAMS, 0].entries()) {
  for (const server of round % 2 === 0 ? builds : [...builds].reverse()) {
    const streams = await Promise.all(Array.from({ length: n }, () => openJournalStream(server)));
    const at = streamed.get(server).get(n);
    at.runs.push(await warmThenRun(server, requests.get(server.href), WARMUP / 2, DURATION / 2, builds));
    for (const stream of streams) at.events += stream.close();
  }
}
const streamRatio = new Map(
  builds.map((server) => {
    const none = combine(streamed.get(server).get(0).runs);
    const open = combine(streamed.get(server).get(STREAMS).runs);
    const { events } = streamed.get(server).get(STREAMS);
    if (events === 0 && !SMOKE) throw new Error(`${server.name}: the journal streams delivered nothing while ${STREAMS} were open`);
    log(`     GET, ${server.name}, no journal stream: ${describe(none)}`);
    log(`     GET, ${server.name}, ${STREAMS} journal streams: ${describe(open)}; ${events} entries streamed`);
    return [server, { ratio: open.rps / none.rps, open, none }];
  }),
);
{
  const [b, c] = builds.map((server) => streamRatio.get(server));
  record(
    `GET throughput with ${STREAMS} journal-stream clients vs none`,
    c.ratio / b.ratio,
    `${c.ratio.toFixed(2)} vs ${b.ratio.toFixed(2)}: ${c.open.rps.toFixed(0)} / ${c.none.rps.toFixed(0)} vs ${b.open.rps.toFixed(0)} / ${b.none.rps.toFixed(0)} req/s`,
  );
}
for (const server of builds) await stop(server);

// 3. CLI spawn → first 200: STARTS spawns of each build, alternated (b c, c b, ...); medians.
const spawnTimes = new Map(builds.map((server) => [server, []]));
const cliOf = new Map([[baseline, BASELINE_CLI], [current, CURRENT_CLI]]);
for (let i = 0; i < STARTS; i++) {
  for (const server of i % 2 === 0 ? builds : [...builds].reverse()) spawnTimes.get(server).push(await spawnToFirst200(cliOf.get(server)));
}
{
  const [b, c] = builds.map((server) => median(spawnTimes.get(server)));
  record('CLI spawn → first 200 (median, lower is better)', c / b, `${c.toFixed(0)} vs ${b.toFixed(0)} ms`, true);
}

finish();

function finish() {
  const ok = holds.filter(Boolean).length;
  log(`\n${ok} of ${holds.length} figures within 5 %; the run took ${((performance.now() - started) / 1000).toFixed(0)} s${SMOKE ? ' (smoke: the figures are not checked)' : ''}`);
  process.exit(SMOKE || ok === holds.length ? 0 : 1);
}

// npm run bench [-- --smoke]: token-sim against a bare Express 5 app and a raw node:http server measured in
// the same run, then configured-user count, scale, memory and start-up. Prints every figure with its
// target; the full run writes docs/benchmarks.md and exits 1 when a target does not hold.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../dist/index.js';
import {
  CONNECTIONS,
  DURATION,
  SMOKE,
  TENANTS,
  WARMUP,
  basic,
  children,
  combine,
  compare,
  createToken,
  describe,
  fixturesFile,
  fmt,
  load,
  log,
  mainFixtures,
  median,
  ms,
  nextCard,
  openJournalStream,
  requests,
  seedMain,
  settle,
  spawnMain,
  spawnServer,
  spawnToFirst200,
  stop,
  throughputOps,
  tokenSimArgs,
  warmThenRun,
  warmUp,
} from './harness.mjs';
import { imageSize } from './image-size.mjs';
import { recordRedisRows, scalingCompare, startRedis, startRedisServers } from './redis-rows.mjs';
import { httpsRows } from './https-rows.mjs';
import { recordRows } from './record-rows.mjs';
import { dashboardLoad } from './dashboard-rows.mjs';
import { STREAM_CONNECTIONS, stateStreamRow } from './state-stream-rows.mjs';

const CLI = fileURLToPath(new URL('../bin/token-sim.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const RAW = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));
const HEAP = fileURLToPath(new URL('./heap.mjs', import.meta.url));
const DOC = new URL('../docs/benchmarks.md', import.meta.url);
const SCALE_TOKENS = SMOKE ? 2_000 : 100_000;
const RSS_FIRST = SMOKE ? 5_000 : 100_000;
const RSS_LAST = SMOKE ? 20_000 : 1_000_000;
/**
 * The fewest GETs spread over the tenants between the two RSS readings, whatever the figures before
 * served: twice what a journal bounded only per tenant, at the default 1,000 entries, would keep in all.
 */
const SPREAD_MIN = SMOKE ? TENANTS * 20 : TENANTS * 1_000 * 2;
/** Configured users of the user-count figure. */
const USERS = 10_000;
const STARTS = SMOKE ? 3 : 10;
const started = performance.now();

/**
 * Memory after two full garbage collections in a server started with gc-on-signal.mjs (and, for the
 * record, its RSS just before them).
 */
async function memoryAfterGc(server) {
  const before = server.rss();
  const { child } = server;
  let out = '';
  const reported = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      out += chunk.toString();
      const match = /gc done (\{.*\})\n/.exec(out);
      if (!match) return;
      child.stdout.off('data', onData);
      resolve(JSON.parse(match[1]));
    };
    child.stdout.on('data', onData);
    child.once('exit', () => reject(new Error(`${server.name} exited while collecting garbage`)));
  });
  child.kill('SIGUSR2');
  return { before, ...(await reported) };
}
/** One server, one request: a warm-up, then one run of the full duration. */
const measure = async (server, request) => combine([await warmThenRun(server, request, WARMUP, DURATION)]);

// ---- figures ---------------------------------------------------------------------------------------
const rows = [];
const record = (figure, value, target, holds) => {
  rows.push({ figure, value, target, holds });
  log(`${holds ? 'ok  ' : 'MISS'} ${figure}: ${value} (target ${target})`);
};
/** The detail table: every measured run, by operation and server. */
const details = [];

/** How the figures were measured, for the log and the document. */
const method =
  `${CONNECTIONS} connections; a figure comparing servers is each server's mean of two ${DURATION / 2} s runs, interleaved (A B C, C B A), ` +
  `each after ${WARMUP / 2} s of warm-up; a figure of token-sim alone is one ${DURATION} s run after ${WARMUP} s of warm-up (the user-count ` +
  `figure: first, last, last, first, ${DURATION / 2} s each)`;
log(`token-sim benchmark${SMOKE ? ' (smoke)' : ''}: ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}; ${method}`);

// 1. Throughput and latency against the framework's ceiling (bare Express) and the floor (raw node:http).
//    token-sim is configured with TENANTS more users, each of whom gets a token, for the memory figure.
const simFixtures = mainFixtures();
const sim = await spawnMain('token-sim (memory store)', CLI, simFixtures);
// Bare Express and raw node:http answer every request with the bytes of token-sim's own answer to this
// create (201, links on the same host and port).
const { first, href, tenantGets } = await seedMain(sim);
const bare = await spawnServer('bare Express', BARE, [], { BARE_BODY: first.text });
const raw = await spawnServer('raw node:http', RAW, [], { BARE_BODY: first.text });
let stored = 10 + TENANTS;
for (const server of [sim, bare, raw]) await warmUp(server, href);

// `before`: the memory store's ratio to bare Express before the store port (issue 16; docs/benchmarks.md,
// 2026-11-23), which it must keep to within 5 %: a target of its own, beside the op's older one.
const BEFORE_KEPT = 0.95;
const targets = {
  'GET token': { bare: 3, raw: 0.6, p99: 1, before: 5.19 },
  'POST /tokens, new card': { bare: 1.5, raw: undefined, p99: 1, before: 1.74 },
  // No throughput target of its own, only the memory store's (0.95 × before); the p99 bound it had.
  'POST /tokens, existing card (200)': { bare: undefined, p99: 2, noRaw: true, before: 2.88 },
  'sale with a token': { bare: 1.5, raw: undefined, p99: 1, before: 1.57 },
  'sale then refund': { bare: 0.5, raw: undefined, p99: 2 },
};
const ops = throughputOps(href).map((op) => ({ ...op, ...targets[op.name] }));
/** The throughput target against bare Express: the op's own and the memory store's (0.95 × before). */
function throughputTarget(op) {
  const kept = op.before === undefined ? undefined : BEFORE_KEPT * op.before;
  const parts = [
    ...(op.bare === undefined ? [] : [`≥ ${op.bare} × bare Express`]),
    ...(kept === undefined ? [] : [`memory store ≥ ${kept.toFixed(2)} × (${BEFORE_KEPT} × ${op.before} before the Redis store)`]),
  ];
  return { text: parts.join('; '), min: Math.max(op.bare ?? 0, kept ?? 0) };
}
for (const op of ops) {
  const servers = [bare, ...(op.noRaw ? [] : [raw]), sim];
  const storedBefore = sim.served;
  const m = await compare(servers, op.request);
  const s = m.get(sim);
  const b = m.get(bare);
  const r = m.get(raw);
  for (const server of servers) {
    details.push({ operation: op.name, server: server.name, ...m.get(server) });
    log(`     ${op.name}, ${server.name}: ${describe(m.get(server))}`);
  }
  const vsBare = s.rps / b.rps;
  const rawNote = r ? `; ${(s.rps / r.rps).toFixed(2)} × raw node:http` : '';
  const target = throughputTarget(op);
  if (target.text === '') record(`${op.name} throughput`, `${vsBare.toFixed(2)} × bare Express${rawNote}`, 'reported', true);
  else record(`${op.name} throughput vs bare Express`, `${vsBare.toFixed(2)} × bare Express${op.raw === undefined ? rawNote : ''}`, target.text, vsBare >= target.min);
  if (op.raw !== undefined) {
    const vsRaw = s.rps / r.rps;
    record(`${op.name} throughput vs raw node:http`, `${vsRaw.toFixed(2)} × raw node:http`, `≥ ${op.raw} × raw node:http`, vsRaw >= op.raw);
  }
  const p99 = s.p99 / Math.max(b.p99, 1);
  record(
    `${op.name} p99 latency`,
    `${ms(s.p99)} ms = ${p99.toFixed(2)} × bare Express (${ms(b.p99)} ms)${r ? `; raw node:http ${ms(r.p99)} ms` : ''}`,
    op.p99 === 1 ? '≤ bare Express p99' : `≤ ${op.p99} × bare Express p99`,
    s.p99 <= op.p99 * b.p99,
  );
  if (op.request.setupRequest) {
    // 2. Scale, part one: fill the vault to SCALE_TOKENS right after the create figure. From here on
    //    nothing new is stored.
    stored += sim.served - storedBefore;
    if (stored < SCALE_TOKENS) await load(sim, requests.createNew(), { amount: SCALE_TOKENS - stored, pipelining: 4 });
  }
}
await stop(bare);
await stop(raw);

// 2. Scale, part two: GET throughput with SCALE_TOKENS stored (compared below with 10 stored).
const getLarge = await measure(sim, requests.get(href));
// 2b. The same GET while GET /_sim/state streams every token stored, export after export (issue 13).
const duringExport = await stateStreamRow(sim, href);

// 4. Dashboards streaming the live journal: GET throughput with 1, 10 and 100 journal streams open (each
//    reading every entry, as the dashboard's EventSource does) against none, alternated (none 1 10 100, 100
//    10 1 none). Each entry is serialised once however many clients listen (contract 4.1).
const STREAM_COUNTS = [0, 1, 10, 100];
const streamed = new Map(STREAM_COUNTS.map((n) => [n, { runs: [], events: 0 }]));
for (const n of [...STREAM_COUNTS, ...[...STREAM_COUNTS].reverse()]) {
  const streams = await Promise.all(Array.from({ length: n }, () => openJournalStream(sim)));
  streamed.get(n).runs.push(await warmThenRun(sim, requests.get(href), WARMUP / 2, DURATION / 2));
  for (const stream of streams) streamed.get(n).events += stream.close();
}
{
  const none = combine(streamed.get(0).runs);
  log(`     GET with no journal stream: ${describe(none)}`);
  for (const [n, target] of [[1, 0.9], [10, 0.9], [100, 0.7]]) {
    const open = combine(streamed.get(n).runs);
    const { events } = streamed.get(n);
    const ratio = open.rps / none.rps;
    log(`     GET with ${n} journal stream${n === 1 ? '' : 's'} open: ${describe(open)}; ${events} entries streamed`);
    if (events === 0 && !SMOKE) throw new Error(`the journal streams delivered nothing while ${n} were open`);
    record(
      n === 1 ? 'GET throughput with a dashboard streaming the journal vs none' : `GET throughput with ${n} journal-stream clients vs none`,
      `${ratio.toFixed(2)} (${open.rps.toFixed(0)} vs ${none.rps.toFixed(0)} req/s; ${events} entries streamed)`,
      `≥ ${target}`,
      ratio >= target,
    );
  }
}

// 3. Memory, with the journal on at its default size: RSS in the steady state — all tokens stored, and
//    RSS_FIRST more requests answered after the heavy allocation of the fill, plus a short round by every
//    tenant — and again after RSS_LAST requests in all. The requests in between are GETs spread evenly
//    over the TENANTS tenants (each connection cycles through their tokens), storing nothing new: what
//    grows is what the journal or a leak keeps, and a journal bounded only per tenant grows by TENANTS ×
//    its size. Both readings follow full garbage collections in the server: a busy process's RSS at any
//    moment also holds the garbage of its last seconds (with 100,000 tokens stored, V8 let it swing by more
//    than half between two readings), which says nothing about what it keeps.
await load(sim, requests.get(href), { amount: RSS_FIRST, pipelining: 10 });
await load(sim, tenantGets, { amount: TENANTS * 5, pipelining: 10 });
const memFirst = await memoryAfterGc(sim);
const rssFirstAt = sim.served;
// Up to RSS_LAST in all, and at least SPREAD_MIN however many were answered before. autocannon may stop a
// few requests short of `amount` with pipelining: ask for a little more.
await load(sim, tenantGets, { amount: Math.max(RSS_LAST - sim.served, SPREAD_MIN) + 2_000, pipelining: 10 });
const spread = sim.served - rssFirstAt;
const memLast = await memoryAfterGc(sim);
const rssLastAt = sim.served;
const journal = (await (await fetch(`${sim.url}/_sim/requests`)).json()).requests.length;

// 2. Scale, part three: the same process, reset to 10 tokens, so both GET figures share the same JIT and
//    heap history and differ only in what is stored.
await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
const { href: smallHref } = await createToken(sim, '4444333322221111');
for (let i = 0; i < 9; i++) await createToken(sim, nextCard());
const getSmall = await measure(sim, requests.get(smallHref));

// 7. The Redis store (issue 16), last: its processes start only after every memory-store figure above, so
//    they never share the machine with them (measured: started before the first figure, as they were, the
//    memory store's GET read 39–40k req/s in three full runs, to the last figure; 51k in a run without
//    them). One redis-server, and on it
//    token-sim as one process and as --workers 2, each under its own key prefix with the main token-sim's
//    fixtures; each GETs a token it created. GET is compared with the memory store (this process, now
//    holding 10 tokens) interleaved, then the workers with one process under wrk (bench/redis-rows.mjs).
const redis = await startRedis(children);
if (redis.skipped) log(redis.skipped);
else {
  const { one, workers } = await startRedisServers(redis, spawnServer, CLI, tokenSimArgs(simFixtures));
  const onRedis = [one, workers];
  for (const server of onRedis) {
    server.href = (await createToken(server, '4444333322221111')).href;
    for (let i = 0; i < 9; i++) await createToken(server, nextCard());
    await warmUp(server, server.href);
  }
  const m = await compare([sim, ...onRedis], (server) => requests.get(server === sim ? smallHref : server.href));
  for (const server of [sim, ...onRedis]) {
    details.push({ operation: 'GET token (Redis rows)', server: server.name, ...m.get(server) });
    log(`     GET token, ${server.name}: ${describe(m.get(server))}`);
  }
  const underWrk = (connections) =>
    scalingCompare(onRedis, (server) => requests.get(server.href), { seconds: DURATION / 2, warmup: WARMUP / 2, connections, settle });
  const scaling = await underWrk(CONNECTIONS);
  const more = CONNECTIONS * 2;
  const scalingMore = scaling.skipped === undefined ? await underWrk(more) : undefined;
  if (scaling.skipped === undefined) {
    for (const server of onRedis) details.push({ operation: 'GET token (wrk)', server: server.name, ...scaling.get(server) });
    for (const server of onRedis) details.push({ operation: `GET token (wrk, ${more} connections)`, server: server.name, ...scalingMore.get(server) });
  }
  recordRedisRows(m, { memory: sim, one, workers, scaling, scalingMore: scalingMore && { map: scalingMore, connections: more } }, record);
  for (const server of onRedis) await stop(server);
  await redis.stop();
}
await stop(sim);
details.push({ operation: `GET token, ${fmt(SCALE_TOKENS)} tokens stored`, server: sim.name, ...getLarge });
details.push({ operation: 'GET token, 10 tokens stored', server: sim.name, ...getSmall });
const scale = getLarge.rps / getSmall.rps;
record(`GET throughput, ${fmt(SCALE_TOKENS)} tokens vs 10`, `${scale.toFixed(2)} (${getLarge.rps.toFixed(0)} vs ${getSmall.rps.toFixed(0)} req/s)`, '≥ 0.9', scale >= 0.9);
record(
  `GET token p99 latency while GET /_sim/state streams the ${fmt(stored)} tokens stored (${STREAM_CONNECTIONS} connections)`,
  `${ms(duringExport.p99)} ms (${fmt(Math.round(duringExport.rps))} req/s; ${duringExport.exports} exports of ${(duringExport.bytes / 2 ** 20).toFixed(1)} MiB completed)`,
  '< 50 ms',
  duringExport.p99 < 50 && duringExport.exports > 0,
);
const growth = memLast.rss / memFirst.rss - 1;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
record(
  `RSS after ${fmt(rssLastAt)} requests vs after ${fmt(rssFirstAt)} (steady state, all tokens stored; the ${fmt(spread)} GETs in between spread over ${TENANTS} tenants; ` +
    `journal on at its default size, ${fmt(journal)} entries kept; read after full garbage collections in the server)`,
  `${mib(memLast.rss)} vs ${mib(memFirst.rss)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %); heap used ${mib(memLast.heapUsed)} vs ${mib(memFirst.heapUsed)}; ` +
    `RSS before the collections ${mib(memLast.before)} vs ${mib(memFirst.before)}`,
  // What the target guards against is growth (an unbounded journal, a leak); V8 handing memory back after
  // the fill's heavy allocation shows as a fall, which holds.
  'at most 10 % above',
  growth <= 0.1,
);

// 4. Configured users: a token-sim process with USERS credentials; the same GET by the first and by the
//    last configured user, each of their own token, alternated (first, last, last, first) so that neither
//    gets the other's warm-up or the machine's quieter moment.
const users = Array.from({ length: USERS }, (_, i) => ({ username: `user${String(i + 1).padStart(5, '0')}`, password: `pw${i + 1}`, entities: ['default'] }));
const many = await spawnServer('token-sim', CLI, tokenSimArgs(fixturesFile('users', users)));
const userGet = async (u) => {
  const auth = basic(u.username, u.password);
  return requests.get((await createToken(many, nextCard(), auth)).href, auth);
};
const firstGet = await userGet(users[0]);
const lastGet = await userGet(users[USERS - 1]);
for (const warm of [firstGet, lastGet]) {
  await settle([many]);
  await load(many, warm, { duration: WARMUP });
}
const userRuns = { first: [], last: [] };
for (const who of ['first', 'last', 'last', 'first']) {
  userRuns[who].push(await warmThenRun(many, who === 'first' ? firstGet : lastGet, WARMUP / 2, DURATION / 2));
}
await stop(many);
const byFirst = combine(userRuns.first);
const byLast = combine(userRuns.last);
details.push({ operation: `GET token, ${fmt(USERS)} users, by the first`, server: many.name, ...byFirst });
details.push({ operation: `GET token, ${fmt(USERS)} users, by the last`, server: many.name, ...byLast });
const users10k = byLast.rps / byFirst.rps;
record(
  `GET throughput with ${fmt(USERS)} configured users, by the last-configured vs by the first`,
  `${users10k.toFixed(2)} (${byLast.rps.toFixed(0)} vs ${byFirst.rps.toFixed(0)} req/s)`,
  'within 10 % (0.9 to 1.1)',
  Math.abs(users10k - 1) <= 0.1,
);
// Not a target: the figure above compares two users of one process, so a cost paid by every user alike
// (say, a walk over all the credentials) would not show there. This shows it.
const usersVsFew = byFirst.rps / getSmall.rps;
record(
  `GET throughput with ${fmt(USERS)} configured users (by the first) vs with ${TENANTS + 1} (the GET with 10 tokens stored)`,
  `${usersVsFew.toFixed(2)} (${byFirst.rps.toFixed(0)} vs ${getSmall.rps.toFixed(0)} req/s)`,
  'reported',
  true,
);

// 5. Retained heap per token, created through the library, in a clean process.
const heap = JSON.parse(execFileSync(process.execPath, ['--expose-gc', HEAP, String(SCALE_TOKENS)], { encoding: 'utf8' }));
record(`retained heap per token (${fmt(heap.count)} tokens)`, `${heap.bytesPerToken.toFixed(0)} B`, '≤ 2048 B', heap.bytesPerToken <= 2048);

// 5b. A 1 MiB invalid scenario body (contract 4.1): one fresh simulator, a warm-up, then five PUTs of a
//     document of 1 MiB whose every rule is wrong. Its answer time (the slowest of the five) and what it adds
//     to the process's RSS at its peak (VmHWM after, over VmRSS before).
{
  const s = await spawnServer('token-sim (invalid scenario body)', CLI, ['--port', '0', '--log', 'silent']);
  const rule = (i) => ({ id: `r${i}`, when: { operation: 'sael', amount: 'x' }, then: { outcome: 'refused', refusalCode: 51, bogus: i } });
  const perRule = JSON.stringify(rule(10_000)).length + 1;
  const body = JSON.stringify({ name: 'invalid', rules: Array.from({ length: Math.floor(((1 << 20) - 1000) / perRule) }, (_, i) => rule(i)) });
  const put = async () => {
    const t0 = performance.now();
    const res = await fetch(`${s.url}/_sim/scenarios`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body });
    const answer = await res.json();
    if (res.status !== 400 || answer.validationErrors?.length !== 100) throw new Error(`PUT /_sim/scenarios of an invalid 1 MiB body answered ${res.status} with ${answer.validationErrors?.length} problems`);
    return performance.now() - t0;
  };
  const peak = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))[1]) * 1024;
  await fetch(`${s.url}/_sim/health`);
  const rssBefore = s.rss();
  await put();
  const times = [];
  for (let i = 0; i < 5; i++) times.push(await put());
  const added = (peak() - rssBefore) / 1048576;
  const slowest = Math.max(...times);
  log(`     invalid 1 MiB scenario body (${fmt(body.length)} B): ${times.map((t) => t.toFixed(0)).join(', ')} ms; RSS ${(rssBefore / 1048576).toFixed(0)} MiB before, peak ${(peak() / 1048576).toFixed(0)} MiB`);
  record('PUT /_sim/scenarios of an invalid 1 MiB body: answer time (slowest of 5)', `${slowest.toFixed(0)} ms`, '≤ 150 ms', slowest <= 150);
  record('PUT /_sim/scenarios of an invalid 1 MiB body: RSS added at its peak', `${added.toFixed(0)} MiB`, '≤ 64 MiB', added <= 64);
  await stop(s);
}

// 6. Start-up: spawning the CLI → first 200, and startSimulator() → resolved. Medians.
const spawnTimes = [];
for (let i = 0; i < STARTS; i++) spawnTimes.push(await spawnToFirst200(CLI));
const spawnMs = median(spawnTimes);
record('CLI spawn → first 200 (median)', `${spawnMs.toFixed(0)} ms`, '≤ 300 ms', spawnMs <= 300);
const readyTimes = [];
for (let i = 0; i < STARTS; i++) {
  const t0 = performance.now();
  const s = await startSimulator({ port: 0 });
  readyTimes.push(performance.now() - t0);
  await s.close();
}
const readyMs = median(readyTimes);
record('startSimulator → ready (median)', `${readyMs.toFixed(1)} ms`, '≤ 50 ms', readyMs <= 50);

// 6b. The dashboard: load time in a real headless Chromium, median of fresh loads (no longer a timed test).
const dash = await dashboardLoad(CLI);
if (dash.missing) record('dashboard load in headless Chromium (median of 5 fresh loads)', `not measured: ${dash.missing}`, '≤ 300 ms', false);
else record('dashboard load in headless Chromium (median of 5 fresh loads)', `${dash.ms.toFixed(0)} ms (${dash.times.map((t) => t.toFixed(0)).join(', ')})`, '≤ 300 ms', dash.ms <= 300);

// 7. The container image (contract 4.3): its size as `npm run test:image` last built it. Not measured here.
record('container image size (the root Dockerfile)', imageSize(), 'reported', true);

// 8. HTTPS (issue 25): GET on a token-sim with --tls against the same on HTTP, interleaved. Reported, no target.
const overTls = await httpsRows(CLI, simFixtures);
for (const side of [overTls.http, overTls.https]) details.push({ operation: 'GET token (HTTPS row)', ...side, server: side.server.name });
record('HTTPS GET vs HTTP GET (reported)', `${(overTls.https.rps / overTls.http.rps).toFixed(2)} × (${fmt(Math.round(overTls.https.rps))} vs ${fmt(Math.round(overTls.http.rps))} req/s)`, 'none', true);

// 9. Recording (issue 27): the median a `token-sim record` proxy adds to each answer, one request at a time.
const recorded = await recordRows(CLI, simFixtures);
record('token-sim record: added median latency per answer', `${ms(recorded.added)} ms (${ms(recorded.proxied)} vs ${ms(recorded.direct)} ms)`, '≤ 1 ms', recorded.added <= 1);

const seconds = (performance.now() - started) / 1000;
const missed = rows.filter((r) => !r.holds);
log(`\n${rows.length - missed.length} of ${rows.length} figures hold; the run took ${seconds.toFixed(0)} s${SMOKE ? ' (smoke: the figures are not checked)' : ''}`);

if (!SMOKE) {
  const table = rows.map((r) => `| ${r.figure} | ${r.value} | ${r.target} | ${r.holds ? 'yes' : '**no**'} |`).join('\n');
  const detail = details
    // A wrk run (the workers row) reports no bytes or load-generator CPU of its own: a dash.
    .map((d) => `| ${d.operation} | ${d.server} | ${d.rps.toFixed(0)} | ${ms(d.p50)} / ${ms(d.p99)} | ${d.cpuUs.toFixed(0)} | ${d.bytes?.toFixed(0) ?? '–'} | ${d.client === undefined ? '–' : `${(d.client * 100).toFixed(0)} %`} |`)
    .join('\n');
  const generated = `<!-- generated by npm run bench -->
Measured ${new Date().toISOString().slice(0, 10)} on ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version};
${method}; the run took ${seconds.toFixed(0)} s.

| figure | measured | target | holds |
|---|---|---|---|
${table}

| operation | server | req/s | p50 / p99 ms | server CPU µs per answer | bytes per answer (headers included) | load generator CPU (of one core) |
|---|---|---|---|---|---|---|
${detail}
<!-- end generated -->`;
  writeFileSync(DOC, readFileSync(DOC, 'utf8').replace(/<!-- generated by npm run bench -->[\s\S]*<!-- end generated -->/, generated));
}
// The smoke run checks that the script works, not the figures (a loaded CI machine measures nothing);
// errors and non-2xx answers still fail it (load throws).
process.exit(SMOKE || missed.length === 0 ? 0 : 1);

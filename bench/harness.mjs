// The helpers that bench/run.mjs (npm run bench) and bench/ab.mjs (npm run bench:ab) share: servers in their
// own processes, the requests, autocannon runs and their interleaved comparison, and the main token-sim's
// set-up. `--smoke` on the command line shortens every run.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { get as httpGet } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { luhnComplete } from './cards.mjs';

export const SMOKE = process.argv.includes('--smoke');
const DEFAULT_FIXTURES = fileURLToPath(new URL('../fixtures/default.json', import.meta.url));
const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const SALE_REQ = 'application/vnd.service.payments-v5+json';
const SALE_RES = 'application/vnd.service.payments-v5.hal+json';
export const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const AUTH = basic('merchant', 'secret');
export const CONNECTIONS = 32;
export const DURATION = SMOKE ? 0.5 : 8;
export const WARMUP = SMOKE ? 0.2 : 1;
/** Tenants, each with its own token, over which the memory figure's requests are spread. */
export const TENANTS = 200;
const GC_ON_SIGNAL = fileURLToPath(new URL('./gc-on-signal.mjs', import.meta.url));

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const log = (line) => process.stdout.write(`${line}\n`);
export const fmt = (n) => n.toLocaleString('en');
export const ms = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

let cardSeq = 0;
export const nextCard = () => luhnComplete(`4${String(++cardSeq).padStart(14, '0')}`);
const createBody = (cardNumber) =>
  JSON.stringify({
    paymentInstrument: { type: 'card/front', cardHolderName: 'Bench Mark', cardNumber, cardExpiryDate: { month: 12, year: 2035 } },
    merchant: { entity: 'default' },
  });
// Each sale a reference of its own: a reference used twice is refused (contract 4.4), as a client's retry
// of a sale that went through would be.
let saleSeq = 0;
const saleBody = (href) =>
  JSON.stringify({
    instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Bench' }, paymentInstrument: { type: 'card/token', href } },
    merchant: { entity: 'default' },
    transactionReference: `bench-${++saleSeq}`,
  });

// ---- processes: each server in its own process, the load from this one ----------------------------
export const children = new Set();
const scratch = mkdtempSync(join(tmpdir(), 'token-sim-bench-'));
// Whatever ends this process (a thrown error included) ends the servers and removes the fixtures.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});
let clockTick = 100;
try {
  clockTick = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // Linux's usual value.
}

export async function spawnServer(name, file, args, env = {}, nodeArgs = []) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  while (!out.includes('\n')) {
    const [chunk] = await Promise.race([once(child.stdout, 'data'), once(child, 'exit').then(() => [null])]);
    if (chunk === null) throw new Error(`${name} exited before listening (${file} ${args.join(' ')})`);
    out += chunk.toString();
  }
  const url = /listening on (\S+)/.exec(out)[1];
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;
  /** CPU seconds (user + system) the process has used. */
  const cpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTick;
  };
  // `served`: every request answered, the setup's included (the memory figure counts them all).
  return { name, child, url, rss, cpu, t0, served: 0 };
}
export async function stop(server) {
  if (server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
}
/** A fixtures file: the default entities and BIN table with the given credentials. */
export function fixturesFile(name, credentials) {
  const path = join(scratch, `${name}.json`);
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(DEFAULT_FIXTURES, 'utf8')), credentials }));
  return path;
}
export const tokenSimArgs = (fixtures) => ['--port', '0', '--seed', 'bench', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'silent', '--fixtures', fixtures];

/** Creates a token through the API; its href, and the answer's body as sent. */
export async function createToken(server, cardNumber, auth = AUTH) {
  const res = await fetch(`${server.url}/tokens`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': TOKEN, Accept: TOKEN }, body: createBody(cardNumber) });
  const text = await res.text();
  server.served++;
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST /tokens answered ${res.status}: ${text}`);
  return { href: JSON.parse(text).tokenPaymentInstrument.href, text };
}

/**
 * A dashboard's live journal: `GET /_sim/requests/stream` read as it comes (server-sent events), counting
 * entries; `close()` ends it and returns the count.
 */
export async function openJournalStream(server) {
  const res = await new Promise((resolve, reject) => {
    const req = httpGet(`${server.url}/_sim/requests/stream`, { headers: { accept: 'text/event-stream' } }, resolve);
    req.on('error', reject);
  });
  if (res.statusCode !== 200) throw new Error(`GET /_sim/requests/stream answered ${res.statusCode}`);
  let entries = 0;
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    for (let at = chunk.indexOf('event: request'); at !== -1; at = chunk.indexOf('event: request', at + 1)) entries++;
  });
  res.on('error', () => {});
  return {
    close() {
      res.destroy();
      return entries;
    },
  };
}

// ---- load ------------------------------------------------------------------------------------------
export const requests = {
  get: (href, auth = AUTH) => ({ method: 'GET', path: new URL(href).pathname, headers: { authorization: auth, accept: TOKEN } }),
  createNew: () => ({
    method: 'POST',
    path: '/tokens',
    headers: { authorization: AUTH, accept: TOKEN, 'content-type': TOKEN },
    setupRequest: (req) => ({ ...req, body: createBody(nextCard()) }),
  }),
  createExisting: () => ({ method: 'POST', path: '/tokens', headers: { authorization: AUTH, accept: TOKEN, 'content-type': TOKEN }, body: createBody('4444333322221111') }),
  sale: (href) => ({ method: 'POST', path: '/payments/sales/migrateCardOnFile', headers: { authorization: AUTH, accept: SALE_RES, 'content-type': SALE_REQ }, setupRequest: (req) => ({ ...req, body: saleBody(href) }) }),
  // A sale, then a full refund through the sale's own payments:refund link (each connection keeps the
  // link of its last sale); the baselines answer both with their fixed body.
  saleThenRefund: (href) => [
    {
      ...requests.sale(href),
      onResponse: (_status, body, context) => {
        try {
          context.refund = new URL(JSON.parse(body)._links['payments:refund'].href).pathname;
        } catch {
          context.refund = undefined;
        }
      },
    },
    {
      method: 'POST',
      path: '/payments/settlements/refunds/full/none',
      headers: { authorization: AUTH, accept: SALE_RES },
      setupRequest: (req, context) => ({ ...req, path: context.refund ?? req.path }),
    },
  ],
};

/** One autocannon run; `request` is one request or a list that every connection cycles through. */
export async function load(server, request, options) {
  const list = Array.isArray(request) ? request : [request];
  // sampleInt: autocannon ends a run at its next sample tick, so 100 ms ticks end runs within 0.1 s of their
  // duration (1 s ticks would stretch a half-second run to a second).
  const result = await autocannon({ url: server.url, connections: CONNECTIONS, requests: list, sampleInt: 100, ...options });
  server.served += result.requests.total;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${result.errors} errors and ${result.non2xx} non-2xx answers from ${server.name} ${list[0].method} ${list[0].path}`);
  return result;
}
/**
 * A measured run: req/s (answers over the run's own duration), latency, the server's CPU time per answer,
 * the bytes of an answer as received (headers included) and how busy the load generator (this process) was,
 * as a fraction of one core.
 */
export async function run(server, request, seconds) {
  const cpu0 = server.cpu();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await load(server, request, { duration: seconds });
  const wall = performance.now() - t0;
  const client = process.cpuUsage(client0);
  const total = r.requests.total;
  // Not a figure that misses but a server that is stuck: the run began with the server idle.
  if (total === 0) throw new Error(`no answer from ${server.name} ${request.method ?? request[0].method} ${request.path ?? request[0].path} in ${seconds} s`);
  return {
    rps: total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: ((server.cpu() - cpu0) * 1e6) / total,
    bytes: r.throughput.total / total,
    client: (client.user + client.system) / 1000 / wall,
  };
}
/**
 * Waits until none of the servers is busy (under 20 % of a core over 100 ms, or 30 s): when autocannon ends
 * a run, the requests in flight are still to be answered, and a slow server's backlog would otherwise eat
 * into the next run — another server's, or another request's on the same server.
 */
export async function settle(servers) {
  for (const deadline = performance.now() + 30_000; performance.now() < deadline; ) {
    const before = servers.map((s) => s.cpu());
    await sleep(100);
    if (servers.every((s, i) => s.cpu() - before[i] <= 0.02)) return;
  }
}
export const combine = (runs) => ({
  rps: mean(runs.map((r) => r.rps)),
  p50: mean(runs.map((r) => r.p50)),
  p99: mean(runs.map((r) => r.p99)),
  cpuUs: mean(runs.map((r) => r.cpuUs)),
  bytes: mean(runs.map((r) => r.bytes)),
  client: mean(runs.map((r) => r.client)),
  runs: runs.length,
});
/**
 * Measures the same request on several servers, interleaved: two rounds of half the duration each, in
 * order then in reverse order (A B C, C B A), each run after a short warm-up. Every server thus sees the
 * same share of whatever else the machine does at the start, middle and end; its figures are the means of
 * its two runs. `request` may be a function of the server (each GETs a token of its own).
 */
export async function compare(servers, request) {
  const runs = new Map(servers.map((s) => [s, []]));
  const requestOf = (server) => (typeof request === 'function' ? request(server) : request);
  for (const order of [servers, [...servers].reverse()]) {
    for (const server of order) runs.get(server).push(await warmThenRun(server, requestOf(server), WARMUP / 2, DURATION / 2, servers));
  }
  return new Map([...runs].map(([server, rs]) => [server, combine(rs)]));
}
/**
 * A warm-up, then a measured run, each started once `quiet` (the server among them) are idle, so that no
 * backlog is carried into the run: not another server's, not another request's, not the warm-up's.
 */
export async function warmThenRun(server, request, warmup, seconds, quiet = [server]) {
  await settle(quiet);
  await load(server, request, { duration: warmup });
  await settle(quiet);
  return run(server, request, seconds);
}
export const describe = (m) => `${m.rps.toFixed(0)} req/s, p50 ${ms(m.p50)} ms, p99 ${ms(m.p99)} ms, ${m.cpuUs.toFixed(0)} µs CPU/answer, ${m.bytes.toFixed(0)} B/answer, load generator ${(m.client * 100).toFixed(0)} % of a core`;

// ---- the main token-sim: as npm run bench starts it, seeds it and warms it up -----------------------
/** The tenants: configured users of the main token-sim beside `merchant`, each of whom gets a token. */
export const tenants = Array.from({ length: TENANTS }, (_, i) => ({ username: `tenant${String(i + 1).padStart(3, '0')}`, password: `pw${i + 1}`, entities: ['default'] }));
/** The main token-sim's fixtures file: `merchant` and the tenants. */
export const mainFixtures = () => fixturesFile('tenants', [{ username: 'merchant', password: 'secret', entities: ['default'] }, ...tenants]);
/**
 * Spawns a token-sim CLI as the main one: `tokenSimArgs(fixtures)`, preloaded with gc-on-signal.mjs for the
 * memory figure (a signal handler and an exposed gc(), no more).
 */
export const spawnMain = (name, cli, fixtures, extra = []) => spawnServer(name, cli, [...tokenSimArgs(fixtures), ...extra], {}, ['--expose-gc', '--import', GC_ON_SIGNAL]);
/**
 * The main token-sim's tokens: a first (its href and answer as sent), nine more, and one for each tenant,
 * whose GETs (`tenantGets`) the memory figure spreads its requests over.
 */
export async function seedMain(server) {
  const first = await createToken(server, '4444333322221111');
  for (let i = 0; i < 9; i++) await createToken(server, nextCard());
  const tenantGets = [];
  for (const t of tenants) {
    const auth = basic(t.username, t.password);
    tenantGets.push(requests.get((await createToken(server, nextCard(), auth)).href, auth));
  }
  return { first, href: first.href, tenantGets };
}
/**
 * Lets V8 optimise the hot paths before anything is measured (a cold process answers its first second
 * much slower); reads and existing-card creates only, so token-sim's vault does not grow.
 */
export async function warmUp(server, href) {
  for (const warm of [requests.get(href), requests.createExisting(), requests.sale(href)]) await load(server, warm, { duration: WARMUP });
}
/** The throughput operations, each with its request; `href` is the token they GET and sell with. */
export const throughputOps = (href) => [
  { name: 'GET token', request: requests.get(href) },
  { name: 'POST /tokens, new card', request: requests.createNew() },
  { name: 'POST /tokens, existing card (200)', request: requests.createExisting() },
  { name: 'sale with a token', request: requests.sale(href) },
  { name: 'sale then refund', request: requests.saleThenRefund(href) },
];
/** Spawns the CLI `cli` with no options and waits for `/_sim/health` to answer 200; the milliseconds it took. */
export async function spawnToFirst200(cli) {
  const s = await spawnServer('token-sim', cli, ['--port', '0', '--log', 'silent']);
  while ((await fetch(`${s.url}/_sim/health`).catch(() => ({ status: 0 }))).status !== 200);
  const took = performance.now() - s.t0;
  await stop(s);
  return took;
}

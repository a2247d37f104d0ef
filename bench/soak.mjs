// npm run soak [-- --seconds 120]: a bounded mixed load against one token-sim process on loopback — creates
// (of a fixed set of cards, so the data stays bounded), reads, updates, deletes, sales, errors — reporting
// RSS and error counts every 10 s. Exits 1 on any unexpected answer or when RSS keeps growing after the
// warm-up (the last sample more than 15 % above the first sample after it).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { luhnComplete } from './cards.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const SECONDS = arg('seconds', 120);
const WARMUP = Math.min(30, Math.floor(SECONDS / 4));
const CARDS = 5_000;
const CLI = fileURLToPath(new URL('../bin/token-sim.js', import.meta.url));
const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const log = (line) => process.stdout.write(`${line}\n`);

const child = spawn(process.execPath, [CLI, '--port', '0', '--seed', 'soak', '--log', 'silent'], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
while (!out.includes('\n')) out += (await once(child.stdout, 'data'))[0].toString();
const url = /listening on (\S+)/.exec(out)[1];
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;

const cards = Array.from({ length: CARDS }, (_, i) => luhnComplete(`4${String(i + 1).padStart(14, '0')}`));
const body = (cardNumber) => JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Soak Test', cardNumber, cardExpiryDate: { month: 12, year: 2035 } }, merchant: { entity: 'default' } });
const first = await fetch(`${url}/tokens`, { method: 'POST', headers: { Authorization: AUTH, Accept: TOKEN, 'Content-Type': TOKEN }, body: body(cards[0]) });
const links = (await first.json())._links;
const path = (rel) => new URL(links[rel].href).pathname;
let n = 0;
// Each sale a reference of its own: a reference used twice is refused (contract 4.4).
let saleSeq = 0;
const headers = { authorization: AUTH, accept: TOKEN, 'content-type': TOKEN };
const requests = [
  { method: 'POST', path: '/tokens', headers, setupRequest: (r) => ({ ...r, body: body(cards[n++ % CARDS]) }) },
  { method: 'GET', path: path('tokens:token'), headers },
  { method: 'PUT', path: path('tokens:description'), headers, setupRequest: (r) => ({ ...r, body: JSON.stringify(`soak ${n % 100}`) }) },
  {
    method: 'POST',
    path: '/payments/sales/migrateCardOnFile',
    headers: { authorization: AUTH, accept: 'application/vnd.service.payments-v5.hal+json', 'content-type': 'application/vnd.service.payments-v5+json' },
    setupRequest: (r) => ({ ...r, body: JSON.stringify({ instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Soak' }, paymentInstrument: { type: 'card/token', href: links['tokens:token'].href } }, merchant: { entity: 'default' }, transactionReference: `soak-${++saleSeq}` }) }),
  },
  { method: 'GET', path: '/tokens/AAAAAAAAAAAAAAAAAAAAAA', headers }, // 400: a ref that is not ours
  { method: 'POST', path: '/tokens', headers, body: '{"paymentInstrument":' }, // 400: not JSON
];
const expectedErrors = new Set([400]);

const samples = [];
let total = 0;
let unexpected = 0;
for (let t = 0; t < SECONDS; t += 10) {
  const result = await autocannon({ url, connections: 16, duration: Math.min(10, SECONDS - t), requests });
  total += result.requests.total;
  const bad = result.errors + result.timeouts + Object.entries(result.statusCodeStats ?? {}).filter(([code]) => Number(code) >= 400 && !expectedErrors.has(Number(code))).reduce((s, [, v]) => s + v.count, 0);
  unexpected += bad;
  const mb = rss() / 2 ** 20;
  if (t + 10 > WARMUP) samples.push(mb);
  log(`${String(t + 10).padStart(4)} s  ${result.requests.average.toFixed(0)} req/s  RSS ${mb.toFixed(1)} MiB  unexpected answers ${bad}`);
}
child.kill('SIGTERM');
const [code] = await once(child, 'exit');
const growth = samples.length > 1 ? samples.at(-1) / samples[0] - 1 : 0;
const flat = growth <= 0.15;
log(`\n${total.toLocaleString('en')} requests, ${unexpected} unexpected answers, RSS after warm-up ${samples[0]?.toFixed(1)} → ${samples.at(-1)?.toFixed(1)} MiB (${(growth * 100).toFixed(1)} %, ${flat ? 'flat' : 'GROWING'}), exit code ${code}`);
process.exit(unexpected === 0 && flat && code === 0 ? 0 : 1);

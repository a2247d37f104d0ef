/**
 * While a snapshot of 100,000 tokens streams out of GET /_sim/state, the API keeps answering: GETs of a token
 * sent while the export streams are answered before its last byte (issue 13, defect 3). Their latency (p99
 * under 50 ms) is a benchmark figure (`npm run bench`), not a timing asserted here: a loaded CI machine
 * measures nothing.
 */
import { Agent, get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSimulator } from '../../src/simulator/compose.js';
import { listening, run, type Run } from '../support/cli.js';
import { luhnCard } from '../support/cards.js';

const TOKENS = 100_000;
const T = 'application/vnd.service.tokens-v1.hal+json';
const auth = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;


// The simulator runs in its own process (the CLI), so that this process's client work — receiving and
// parsing 47 MB, generating load — does not share its event loop.
let proc: Run;
let url: string;
let href: string;

beforeAll(async () => {
  // 100,000 tokens, sealed with the seed's keys, imported into the CLI started with the same seed.
  const maker = createSimulator({ seed: 'stream', now: '2030-01-01T00:00:00Z', frozen: true, log: 'silent' });
  for (let i = 0; i < TOKENS; i++) {
    maker.vault.create('merchant', { entity: 'default', card: { number: luhnCard(i), holderName: 'Stream Test', expiryDate: { month: 12, year: 2035 } } });
  }
  proc = run(['--port', '0', '--seed', 'stream', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'silent']);
  url = await listening(proc);
  const imported = await fetch(`${url}/_sim/state`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(maker.exportState()) });
  expect(imported.status).toBe(204);
  const created = await fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': T, Accept: T },
    body: JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Reader', cardNumber: luhnCard(TOKENS), cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } }),
  });
  href = ((await created.json()) as { tokenPaymentInstrument: { href: string } }).tokenPaymentInstrument.href;
}, 120_000);

afterAll(async () => {
  proc.child.kill('SIGTERM');
  await proc.exited;
});

describe('GET /_sim/state of 100,000 tokens', () => {
  it('streams the whole snapshot while GETs sent during the export are answered before it ends', async () => {
    // The export is read with node:http, keeping the chunks (cheap), and parsed at the end: this process
    // sends the GETs too, and must not spend the export decoding 47 MB.
    let exportDone = false;
    let firstChunk!: () => void;
    const streaming = new Promise<void>((resolve) => (firstChunk = resolve));
    const exported = new Promise<{ status: number; text: string }>((resolve, reject) => {
      get(`${url}/_sim/state`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          firstChunk();
        });
        res.on('end', () => {
          exportDone = true;
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      }).on('error', reject);
    });
    await streaming;
    // Four clients GET the token one after another until the export has ended. An export that ran to its end
    // before serving anything else (writes the socket takes at once never wait) answers none of them first.
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const statuses: number[] = [];
    let answeredDuringExport = 0;
    const getToken = () =>
      new Promise<number>((resolve, reject) => {
        get(href, { agent, headers: { Authorization: auth, Accept: T } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        }).on('error', reject);
      });
    const client = async () => {
      while (!exportDone) {
        statuses.push(await getToken());
        if (!exportDone) answeredDuringExport++;
      }
    };
    await Promise.all([client(), client(), client(), client()]);
    agent.destroy();
    const { status, text } = await exported;
    expect(status).toBe(200);
    const snapshot = JSON.parse(text) as { tokens: unknown[] };
    expect(snapshot.tokens).toHaveLength(TOKENS + 1);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(answeredDuringExport).toBeGreaterThanOrEqual(20);
  }, 120_000);
});

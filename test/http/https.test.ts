/**
 * HTTPS (contract 4.3, decision 0053): `--tls` with a local CA kept in `--tls-dir`, or the user's own
 * certificate; every surface over it (API, /_sim, dashboard, live journal, HAR, connectSimulator, webhooks to
 * https receivers with `--webhook-ca`). Real sockets, real TLS: a client that trusts the printed CA works, the
 * same client without it is refused by its own check.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpsServer, request, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates, connect } from 'node:tls';
import type { SimulatorOptions } from '../../src/config/options.js';
import { localCertificate } from '../../src/infra/certificates.js';
import { connectSimulator } from '../../src/index.js';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const SALE_TYPE = 'application/vnd.service.payments-v5+json';
const SALE_ANSWER = 'application/vnd.service.payments-v5.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const CARD = { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } };

/** The HTTP suite runs once per store: on the "http (redis)" project this simulator keeps its state in Redis. */
const REDIS_URL = process.env.TOKEN_SIM_TEST_STORE === 'redis' ? process.env.JEST_REDIS_URL : undefined;
let count = 0;
const storeOptions = (): SimulatorOptions => (REDIS_URL === undefined ? {} : { store: REDIS_URL, storePrefix: `https:${process.pid}:${++count}:${Date.now()}:` });

const dirs: string[] = [];
const running: StartedSimulator[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-tls-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(running.map((sim) => sim.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(options: SimulatorOptions): Promise<StartedSimulator> {
  const sim = await startSimulator({ port: 0, seed: 'tls', now: '2030-01-01T00:00:00Z', frozen: true, ...storeOptions(), ...options }, { writeErr: () => undefined });
  running.push(sim);
  return sim;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

/** One request with node:https; `ca` undefined: the system store only (as an ordinary client). */
function call(url: string, ca: string | undefined, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = request(url, { method: init.method ?? 'GET', headers: { ...init.headers, ...(text !== undefined && { 'Content-Length': String(Buffer.byteLength(text)) }) }, ...(ca !== undefined && { ca }), agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body, json: () => JSON.parse(body) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** The certificate a server presents, read off the TLS handshake (no trust needed to read it). */
function presented(url: string): Promise<X509Certificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), servername: 'localhost', rejectUnauthorized: false }, () => {
      const raw = socket.getPeerX509Certificate();
      socket.destroy();
      if (raw) resolve(raw);
      else reject(new Error('no certificate'));
    });
    socket.on('error', reject);
  });
}

const hrefOf = (body: Record<string, unknown>, rel: string): string => ((body._links as Record<string, { href: string }>)[rel] as { href: string }).href;

describe('--tls with a local CA', () => {
  it('serves the API and /_sim over HTTPS to a client that trusts the CA, and links with https://', async () => {
    const dir = tempDir();
    const sim = await start({ tls: true, tlsDir: dir });
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.caFile).toBe(join(dir, 'ca.pem'));
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const created = await call(`${sim.url}/tokens`, ca, { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': TOKEN_TYPE, Accept: TOKEN_TYPE }, body: { paymentInstrument: CARD, merchant: { entity: 'default' } } });
    expect(created.status).toBe(201);
    const token = hrefOf(created.json(), 'tokens:token');
    expect(token.startsWith(`${sim.url}/tokens/`)).toBe(true);
    expect(String(created.headers.location)).toBe(token);
    const sold = await call(`${sim.url}/payments/sales/migrateCardOnFile`, ca, {
      method: 'POST',
      headers: { Authorization: AUTH, 'Content-Type': SALE_TYPE, Accept: SALE_ANSWER },
      body: { instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street' }, paymentInstrument: { type: 'card/token', href: token } }, merchant: { entity: 'default' }, transactionReference: 'tls-1' },
    });
    expect(sold.status).toBe(201);
    expect(sold.json().outcome).toBe('sentForSettlement');
    const moved = await call(`${sim.url}/_sim/clock/advance`, ca, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: { by: 'P8D' } });
    expect(moved.status).toBe(200);
    expect(moved.json().now).toBe('2030-01-09T00:00:00Z');
    // Eight days on, the try profile's seven-day token has expired.
    expect((await call(token, ca, { headers: { Authorization: AUTH, Accept: TOKEN_TYPE } })).status).toBe(404);
  });

  it('is refused by the TLS check of the same client when it does not trust the CA', async () => {
    const sim = await start({ tls: true, tlsDir: tempDir() });
    await expect(call(`${sim.url}/_sim/health`, undefined)).rejects.toMatchObject({ code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN/) });
    // The system store plus the CA: trusted.
    const ca = readFileSync(sim.caFile as string, 'utf8');
    expect((await call(`${sim.url}/_sim/health`, [...rootCertificates, ca].join('\n'))).status).toBe(200);
  });

  it('makes the CA and certificate once, keys at mode 0600, and reuses them on the next start', async () => {
    const dir = tempDir();
    const first = await start({ tls: true, tlsDir: dir });
    const firstCert = await presented(first.url);
    const ca = new X509Certificate(readFileSync(join(dir, 'ca.pem')));
    expect(firstCert.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    for (const key of ['ca-key.pem', 'server-key.pem']) expect(statSync(join(dir, key)).mode & 0o777).toBe(0o600);
    await first.close();
    const second = await start({ tls: true, tlsDir: dir });
    expect((await presented(second.url)).fingerprint256).toBe(firstCert.fingerprint256);
  });

  it('names localhost, 127.0.0.1, ::1, the --host value and the --base-url host; a new name gets a new certificate from the same CA', async () => {
    const dir = tempDir();
    const sim = await start({ tls: true, tlsDir: dir });
    const cert = await presented(sim.url);
    expect(cert.subjectAltName?.split(', ').sort()).toEqual(['DNS:localhost', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:127.0.0.1'].sort());
    const ca = new X509Certificate(readFileSync(join(dir, 'ca.pem')));
    const other = await start({ tls: true, tlsDir: dir, baseUrl: 'https://sim.example.test:9443' });
    const renamed = await presented(other.url);
    expect(renamed.checkHost('sim.example.test')).toBe('sim.example.test');
    expect(renamed.checkHost('localhost')).toBe('localhost');
    expect(renamed.verify(ca.publicKey)).toBe(true);
    expect(new X509Certificate(readFileSync(join(dir, 'ca.pem'))).fingerprint256).toBe(ca.fingerprint256);
    const hosted = await start({ tls: true, tlsDir: dir, host: 'localhost' });
    expect((await presented(hosted.url)).checkHost('localhost')).toBe('localhost');
  });

  it('serves the dashboard, the live journal and a HAR with https:// URLs', async () => {
    const sim = await start({ tls: true, tlsDir: tempDir() });
    const ca = readFileSync(sim.caFile as string, 'utf8');
    const page = await call(`${sim.url}/_sim/ui`, ca);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    // The live journal: an event for a request made while it is open.
    const event = new Promise<string>((resolve, reject) => {
      const req = request(`${sim.url}/_sim/requests/stream`, { ca, headers: { Accept: 'text/event-stream' } }, (res) => {
        let seen = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          seen += chunk;
          if (seen.includes('"path":"/tokens/nope"')) {
            res.destroy();
            resolve(seen);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Not a token id: refused, and journaled like any request.
    expect((await call(`${sim.url}/tokens/nope`, ca, { headers: { Authorization: AUTH, Accept: TOKEN_TYPE } })).status).toBe(400);
    expect(await event).toContain('event: request');
    const har = (await call(`${sim.url}/_sim/requests?format=har`, ca)).json() as { log: { entries: { request: { url: string } }[] } };
    expect(har.log.entries.length).toBeGreaterThan(0);
    for (const entry of har.log.entries) expect(entry.request.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
  });

  it('is driven by connectSimulator given the CA, and refused without it', async () => {
    const sim = await start({ tls: true, tlsDir: tempDir() });
    const remote = connectSimulator(sim.url, { ca: readFileSync(sim.caFile as string) });
    await remote.ready(5000);
    expect(await remote.clock.advance('P1D')).toBe('2030-01-02T00:00:00Z');
    expect(await remote.tenant('merchant').clock.now()).toBe('2030-01-02T00:00:00Z');
    await expect(connectSimulator(sim.url).clock.now()).rejects.toThrow(/certificate/);
  });
});

describe('--tls-cert and --tls-key', () => {
  it('present the certificate given, and make no local CA', async () => {
    const own = await localCertificate(tempDir(), ['localhost', '127.0.0.1']);
    const dir = tempDir();
    const files = { cert: join(dir, 'mine.pem'), key: join(dir, 'mine-key.pem') };
    const { writeFileSync } = await import('node:fs');
    writeFileSync(files.cert, own.cert);
    writeFileSync(files.key, own.key);
    const tlsDir = join(dir, 'unused');
    const sim = await start({ tlsCert: files.cert, tlsKey: files.key, tlsDir });
    expect(sim.url.startsWith('https://')).toBe(true);
    expect(sim.caFile).toBeUndefined();
    expect((await presented(sim.url)).fingerprint256).toBe(new X509Certificate(own.cert).fingerprint256);
    expect(() => statSync(tlsDir)).toThrow();
    const ca = readFileSync(own.caFile, 'utf8');
    expect((await call(`${sim.url}/_sim/health`, ca)).status).toBe(200);
  });

  it('are refused alone, unreadable, not PEM, or not a pair, each with its reason', async () => {
    const other = await localCertificate(tempDir(), ['localhost']);
    const mine = await localCertificate(tempDir(), ['localhost']);
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'cert.pem'), mine.cert);
    writeFileSync(join(dir, 'other-key.pem'), other.key);
    writeFileSync(join(dir, 'text.pem'), 'not a certificate');
    await expect(start({ tlsCert: join(dir, 'cert.pem') })).rejects.toThrow('--tls-cert and --tls-key go together: give both, or neither');
    await expect(start({ tlsCert: join(dir, 'missing.pem'), tlsKey: join(dir, 'other-key.pem') })).rejects.toThrow(/^--tls-cert names a file that cannot be read: .*missing\.pem \(ENOENT\)$/);
    await expect(start({ tlsCert: join(dir, 'text.pem'), tlsKey: join(dir, 'other-key.pem') })).rejects.toThrow(/^--tls-cert must be a PEM file with a CERTIFICATE block: /);
    await expect(start({ tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'other-key.pem') })).rejects.toThrow(/^the TLS certificate and key cannot serve: .*key values mismatch/);
    await expect(start({ tls: false, tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'other-key.pem') })).rejects.toThrow('--tls-cert and --tls-key serve HTTPS: they cannot go with --tls false');
  });
});

describe('--webhook-ca', () => {
  let receiver: HttpsServer | undefined;
  afterAll(() => void receiver?.close());

  it('lets webhooks reach an https receiver signed by that CA; without it delivery fails on the certificate', async () => {
    const receiverTls = await localCertificate(tempDir(), ['localhost', '127.0.0.1']);
    const bodies: string[] = [];
    receiver = createHttpsServer({ cert: receiverTls.cert, key: receiverTls.key }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        bodies.push(body);
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const trusting = await startSimulator({ port: 0, seed: 'tls', frozen: true, webhookUrl, webhookCa: receiverTls.caFile, ...storeOptions() }, { writeErr: () => undefined });
    running.push(trusting);
    const plain = await startSimulator({ port: 0, seed: 'tls', frozen: true, webhookUrl, ...storeOptions() }, { writeErr: () => undefined });
    running.push(plain);
    for (const sim of [trusting, plain]) {
      const sold = await fetch(`${sim.url}/payments/sales/migrateCardOnFile`, {
        method: 'POST',
        headers: { Authorization: AUTH, 'Content-Type': SALE_TYPE, Accept: SALE_ANSWER },
        body: JSON.stringify({ instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street' }, paymentInstrument: { ...CARD, type: 'card/plain' } }, merchant: { entity: 'default' }, transactionReference: 'hook-1' }),
      });
      expect(sold.status).toBe(201);
    }
    await trusting.flushWebhooks({ timeoutMs: 5000 });
    expect(trusting.webhooks().map((w) => [w.state, w.lastStatus])).toEqual([['delivered', 200]]);
    expect(bodies).toHaveLength(1);
    await plain.flushWebhooks({ timeoutMs: 5000 });
    const refused = plain.webhooks()[0];
    expect(refused?.lastStatus).toBeNull();
    expect(refused?.lastError).toMatch(/certificate/i);
    expect(bodies).toHaveLength(1);
  });

  it('is refused when the file is not a PEM certificate', async () => {
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'ca.txt'), 'hello');
    await expect(start({ webhookCa: join(dir, 'ca.txt') })).rejects.toThrow(/^--webhook-ca must be a PEM file with a CERTIFICATE block: /);
  });
});

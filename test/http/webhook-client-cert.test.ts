/**
 * The client certificate of webhook deliveries (contract 4.4, decision 0056): `--webhook-client-cert` and
 * `--webhook-client-key`, or with `--tls` one issued from the local CA. A real https receiver that requests and
 * verifies client certificates (`requestCert`, `rejectUnauthorized`, its own `ca`) notes what each delivery presented.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { SimulatorOptions } from '../../src/config/options.js';
import { localCertificate, localClientCertificate } from '../../src/infra/certificates.js';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';

const SALE_TYPE = 'application/vnd.service.payments-v5+json';
const SALE_ANSWER = 'application/vnd.service.payments-v5.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

const REDIS_URL = process.env.TOKEN_SIM_TEST_STORE === 'redis' ? process.env.JEST_REDIS_URL : undefined;
let count = 0;
const storeOptions = (): SimulatorOptions => (REDIS_URL === undefined ? {} : { store: REDIS_URL, storePrefix: `client-cert:${process.pid}:${++count}:${Date.now()}:` });

const dirs: string[] = [];
const running: StartedSimulator[] = [];
const receivers: Server[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-client-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(running.map((sim) => sim.close()));
  for (const server of receivers) {
    server.closeAllConnections();
    server.close();
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Presented {
  fingerprint: string;
  subject: string;
}

/**
 * An https receiver that asks every client for a certificate and refuses the handshake unless the certificate
 * chains to `clientCa`; it notes the certificate each delivery presented. Its own certificate is `serverCa`'s.
 */
async function receiver(clientCa: string): Promise<{ url: string; serverCa: string; seen: Presented[] }> {
  const own = await localCertificate(tempDir(), ['localhost', '127.0.0.1']);
  const seen: Presented[] = [];
  const server = createServer({ cert: own.cert, key: own.key, ca: clientCa, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerX509Certificate();
    req.resume();
    req.on('end', () => {
      if (peer) seen.push({ fingerprint: peer.fingerprint256, subject: peer.subject });
      res.end();
    });
  });
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, serverCa: own.caFile, seen };
}

async function start(options: SimulatorOptions): Promise<StartedSimulator> {
  const sim = await startSimulator({ port: 0, seed: 'client-cert', now: '2030-01-01T00:00:00Z', frozen: true, ...storeOptions(), ...options }, { writeErr: () => undefined });
  running.push(sim);
  return sim;
}

/** A sale (one sentForSettlement event), over the simulator's own scheme (trusting its CA when it has one). */
async function saleThrough(sim: StartedSimulator, reference: string): Promise<void> {
  const request = sim.url.startsWith('https') ? httpsRequest : httpRequest;
  const body = JSON.stringify({
    instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street' }, paymentInstrument: { type: 'card/plain', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } } },
    merchant: { entity: 'default' },
    transactionReference: reference,
  });
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      `${sim.url}/payments/sales/migrateCardOnFile`,
      { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': SALE_TYPE, Accept: SALE_ANSWER, 'Content-Length': String(Buffer.byteLength(body)) }, ...(sim.caFile !== undefined && { ca: readFileSync(sim.caFile, 'utf8') }) },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  expect(status).toBe(201);
}

describe('--webhook-client-cert and --webhook-client-key', () => {
  it('present that certificate to an https receiver that requires one; without them the receiver refuses the handshake', async () => {
    const issued = await localClientCertificate(tempDir());
    const hook = await receiver(readFileSync(issued.caFile, 'utf8'));
    const dir = tempDir();
    writeFileSync(join(dir, 'client.pem'), issued.cert);
    writeFileSync(join(dir, 'client-key.pem'), issued.key);
    const presenting = await start({ webhookUrl: hook.url, webhookCa: hook.serverCa, webhookClientCert: join(dir, 'client.pem'), webhookClientKey: join(dir, 'client-key.pem') });
    const anonymous = await start({ webhookUrl: hook.url, webhookCa: hook.serverCa });

    await saleThrough(presenting, 'client-cert-1');
    expect(await presenting.flushWebhooks({ timeoutMs: 5000 })).toEqual({ flushed: true, pending: 0 });
    expect(presenting.webhooks().map((w) => [w.state, w.lastStatus])).toEqual([['delivered', 200]]);
    expect(hook.seen).toEqual([{ fingerprint: new X509Certificate(issued.cert).fingerprint256, subject: 'CN=token-sim webhooks\nO=token-sim' }]);

    await saleThrough(anonymous, 'client-cert-2');
    await anonymous.flushWebhooks({ timeoutMs: 5000 });
    const refused = anonymous.webhooks()[0];
    expect([refused?.state, refused?.lastStatus]).toEqual(['failed', null]);
    expect(refused?.lastError).toMatch(/certificate|socket hang up|ECONNRESET|alert/i);
    expect(hook.seen).toHaveLength(1);
  });

  it('are refused alone, unreadable, not PEM, or not a pair, each with its reason', async () => {
    const mine = await localClientCertificate(tempDir());
    const other = await localClientCertificate(tempDir());
    const dir = tempDir();
    writeFileSync(join(dir, 'cert.pem'), mine.cert);
    writeFileSync(join(dir, 'key.pem'), mine.key);
    writeFileSync(join(dir, 'other-key.pem'), other.key);
    writeFileSync(join(dir, 'text.pem'), 'not a certificate');
    await expect(start({ webhookClientCert: join(dir, 'cert.pem') })).rejects.toThrow('--webhook-client-cert and --webhook-client-key go together: give both, or neither');
    await expect(start({ webhookClientKey: join(dir, 'key.pem') })).rejects.toThrow('--webhook-client-cert and --webhook-client-key go together: give both, or neither');
    await expect(start({ webhookClientCert: join(dir, 'missing.pem'), webhookClientKey: join(dir, 'key.pem') })).rejects.toThrow(/^--webhook-client-cert names a file that cannot be read: .*missing\.pem \(ENOENT\)$/);
    await expect(start({ webhookClientCert: join(dir, 'text.pem'), webhookClientKey: join(dir, 'key.pem') })).rejects.toThrow(/^--webhook-client-cert must be a PEM file with a CERTIFICATE block: /);
    await expect(start({ webhookClientCert: join(dir, 'cert.pem'), webhookClientKey: join(dir, 'text.pem') })).rejects.toThrow(/^--webhook-client-key must be a PEM file with a PRIVATE KEY block: /);
    await expect(start({ webhookClientCert: join(dir, 'cert.pem'), webhookClientKey: join(dir, 'other-key.pem') })).rejects.toThrow('--webhook-client-key is not the key of --webhook-client-cert');
  });
});

describe('--tls with a webhook receiver and no client certificate given', () => {
  it('issues one from the local CA (clientAuth, beside the server certificate, key 0600) and presents it; the next start reuses it', async () => {
    const tlsDir = tempDir();
    // The simulator's CA exists before it starts, so that the receiver can be told to trust it.
    await localCertificate(tlsDir, ['localhost', '127.0.0.1']);
    const hook = await receiver(readFileSync(join(tlsDir, 'ca.pem'), 'utf8'));
    const first = await start({ tls: true, tlsDir, webhookUrl: hook.url, webhookCa: hook.serverCa });
    const made = new X509Certificate(readFileSync(join(tlsDir, 'client.pem')));
    expect(made.verify(new X509Certificate(readFileSync(join(tlsDir, 'ca.pem'))).publicKey)).toBe(true);
    expect(made.keyUsage).toEqual([CLIENT_AUTH]);
    expect(made.subject).toBe('CN=token-sim webhooks\nO=token-sim');
    expect(statSync(join(tlsDir, 'client-key.pem')).mode & 0o777).toBe(0o600);

    await saleThrough(first, 'local-ca-1');
    expect(await first.flushWebhooks({ timeoutMs: 5000 })).toEqual({ flushed: true, pending: 0 });
    expect(first.webhooks().map((w) => w.state)).toEqual(['delivered']);
    await first.close();

    const second = await start({ tls: true, tlsDir, webhookUrl: hook.url, webhookCa: hook.serverCa });
    await saleThrough(second, 'local-ca-2');
    await second.flushWebhooks({ timeoutMs: 5000 });
    expect(hook.seen.map((p) => p.fingerprint)).toEqual([made.fingerprint256, made.fingerprint256]);
  });

  it('presents the given certificate instead of issuing one, and issues none without a webhook receiver', async () => {
    const given = await localClientCertificate(tempDir());
    const files = tempDir();
    writeFileSync(join(files, 'c.pem'), given.cert);
    writeFileSync(join(files, 'k.pem'), given.key);
    const hook = await receiver(readFileSync(given.caFile, 'utf8'));
    const tlsDir = tempDir();
    const sim = await start({ tls: true, tlsDir, webhookUrl: hook.url, webhookCa: hook.serverCa, webhookClientCert: join(files, 'c.pem'), webhookClientKey: join(files, 'k.pem') });
    await saleThrough(sim, 'given-1');
    await sim.flushWebhooks({ timeoutMs: 5000 });
    expect(hook.seen.map((p) => p.fingerprint)).toEqual([new X509Certificate(given.cert).fingerprint256]);
    expect(() => statSync(join(tlsDir, 'client.pem'))).toThrow();
    const quiet = tempDir();
    await start({ tls: true, tlsDir: quiet });
    expect(() => statSync(join(quiet, 'client.pem'))).toThrow();
    expect(statSync(join(quiet, 'server.pem')).isFile()).toBe(true);
  });
});

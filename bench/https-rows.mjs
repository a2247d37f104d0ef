// The HTTPS row of `npm run bench` (issue 25): GET throughput of a token-sim serving HTTPS (`--tls`) against the
// same token-sim serving HTTP, measured in one interleaved compare(). Reported, with no target: TLS costs what
// it costs; the figure says how much. Keep-alive connections, as clients use them: the handshakes are paid
// once per connection, the encryption on every answer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basic, compare, createToken, requests, spawnServer, stop, tokenSimArgs } from './harness.mjs';

const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = basic('merchant', 'secret');

/** POST /tokens over HTTPS, trusting `ca`: the token's href. */
function createTokenOverTls(server, ca) {
  const body = JSON.stringify({
    paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
    merchant: { entity: 'default' },
  });
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/tokens`, { method: 'POST', ca, headers: { Authorization: AUTH, 'Content-Type': TOKEN, Accept: TOKEN, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        server.served++;
        if (res.statusCode !== 201) reject(new Error(`POST /tokens over HTTPS answered ${res.statusCode}: ${text}`));
        else resolve(JSON.parse(text).tokenPaymentInstrument.href);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** GET over HTTPS and over HTTP, each on a token-sim of its own started with `fixtures`: both measurements. */
export async function httpsRows(cli, fixtures) {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-bench-tls-'));
  const plain = await spawnServer('token-sim (HTTP)', cli, tokenSimArgs(fixtures));
  const tls = await spawnServer('token-sim (HTTPS, --tls)', cli, [...tokenSimArgs(fixtures), '--tls', '--tls-dir', dir]);
  try {
    const hrefs = new Map([
      [plain, (await createToken(plain, '4444333322221111')).href],
      [tls, await createTokenOverTls(tls, readFileSync(join(dir, 'ca.pem')))],
    ]);
    const measured = await compare([plain, tls], (server) => requests.get(hrefs.get(server)));
    return { http: { server: plain, ...measured.get(plain) }, https: { server: tls, ...measured.get(tls) } };
  } finally {
    await stop(plain);
    await stop(tls);
    rmSync(dir, { recursive: true, force: true });
  }
}

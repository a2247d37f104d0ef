/**
 * Issue 27 (contract 4.5): a recording of token-sim itself verifies with no difference (on the store this project
 * runs on: memory, or Redis in "http (redis)"); recordings made with other options report exactly the
 * differences those options cause; the proxy rewrites links, reduces credentials and keeps the HAR valid.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startSimulator } from '../../src/simulator/server.js';
import { record } from '../../src/verify/recorder.js';
import { verify } from '../../src/simulator/replay.js';
import { reportLines } from '../../src/verify/compare.js';
import { record as libraryRecord, startSimulator as libraryStart, verify as libraryVerify } from '../../src/index.js';
import { recordSession, runSession, storeOptions } from '../support/recorded-session.js';

const MERCHANT = { user: 'merchant', password: 'secret' };
const CARD = { cardNumber: '4444333322221111', cvc: '123', cardHolderName: 'Sherlock Holmes' };
const REFUSE_EVERY_SALE = {
  name: 'refuse-every-sale',
  rules: [{ id: 'refused', when: { operation: 'sale' }, then: { outcome: { outcome: 'refused', refusalCode: '5', refusalDescription: 'REFUSED' } } }],
};

interface Har {
  log: { comment: string; entries: { request: { url: string; method: string; headers: { name: string; value: string }[] }; response: { status: number; headers: { name: string; value: string }[]; content: { text?: string } } }[] };
}
const readHar = (path: string): Har => JSON.parse(readFileSync(path, 'utf8')) as Har;
/** Each line with the recording's random refs in its paths left out. */
const withoutRefs = (lines: string[]): string[] => lines.map((l) => l.replace(/\/tokens\/[A-Za-z0-9_-]{22}/g, '/tokens/…'));

describe('verify', () => {
  it('finds no difference in a recording of token-sim itself', async () => {
    const har = await recordSession(storeOptions('self-up'), (proxy) => runSession(proxy, MERCHANT, [CARD, { ...CARD, cardNumber: '5555555555554444', cardHolderName: 'REFUSED' }]));
    const report = await verify({ har, options: storeOptions('self-verify') });
    expect(report).toEqual({ requests: 16, differences: [], counts: {} });
    expect(reportLines(report)).toEqual(['no difference in 16 answers']);
    // In the "http (redis)" project both simulators ran on Redis.
    if (process.env.TOKEN_SIM_TEST_STORE === 'redis') expect(storeOptions('check').store).toMatch(/^redis:\/\//);
  });

  it('reports what --vendor worldpay changes: every other media type is refused', async () => {
    const har = await recordSession({ vendor: 'worldpay', ...storeOptions('wp') }, (proxy) => runSession(proxy, MERCHANT, [CARD], 'worldpay'));
    const report = await verify({ har, options: storeOptions('wp-verify') });
    expect(withoutRefs(reportLines(report))).toEqual([
      'status  #1 POST /tokens: recorded 201, simulator 415',
      'status  #2 POST /tokens: recorded 200, simulator 415',
      'status  #3 GET /tokens/…: recorded 200, simulator 406',
      'status  #4 PUT /tokens/…: recorded 204, simulator 415',
      'status  #5 POST /payments/sales/migrateCardOnFile: recorded 201, simulator 415',
      'status  #6 POST /payments/sales/migrateCardOnFile: recorded 201, simulator 415',
      'status  #7 POST /tokens: recorded 400, simulator 415',
      'status  #10 DELETE /tokens/…: recorded 204, simulator 406',
      'errorName  #1 POST /tokens: recorded (none), simulator headerHasInvalidValue',
      'errorName  #2 POST /tokens: recorded (none), simulator headerHasInvalidValue',
      'errorName  #3 GET /tokens/…: recorded (none), simulator headerHasInvalidValue',
      'errorName  #4 PUT /tokens/…: recorded (none), simulator headerHasInvalidValue',
      'errorName  #5 POST /payments/sales/migrateCardOnFile: recorded (none), simulator headerHasInvalidValue',
      'errorName  #6 POST /payments/sales/migrateCardOnFile: recorded (none), simulator headerHasInvalidValue',
      'errorName  #7 POST /tokens: recorded bodyDoesNotMatchSchema, simulator headerHasInvalidValue',
      'errorName  #10 DELETE /tokens/…: recorded (none), simulator headerHasInvalidValue',
      '16 differences in 8 of 10 answers (status 8, errorName 8)',
    ]);
    expect(report.counts).toEqual({ status: 8, errorName: 8 });
  });

  it('reports what a scenario that refuses every sale changes: the outcome, its refusal fields and the authorization code', async () => {
    const har = await recordSession({ scenarios: [REFUSE_EVERY_SALE], ...storeOptions('refused') }, (proxy) => runSession(proxy, MERCHANT, [CARD]));
    const report = await verify({ har, options: storeOptions('refused-verify') });
    expect(withoutRefs(reportLines(report))).toEqual([
      'field missing  #5 POST /payments/sales/migrateCardOnFile: $.refusalCode (string)',
      'field missing  #5 POST /payments/sales/migrateCardOnFile: $.refusalDescription (string)',
      'field missing  #6 POST /payments/sales/migrateCardOnFile: $.refusalCode (string)',
      'field missing  #6 POST /payments/sales/migrateCardOnFile: $.refusalDescription (string)',
      'field extra  #5 POST /payments/sales/migrateCardOnFile: $.issuer (object)',
      'field extra  #5 POST /payments/sales/migrateCardOnFile: $.issuer.authorizationCode (string)',
      'field extra  #6 POST /payments/sales/migrateCardOnFile: $.issuer (object)',
      'field extra  #6 POST /payments/sales/migrateCardOnFile: $.issuer.authorizationCode (string)',
      'link  #5 POST /payments/sales/migrateCardOnFile: $._links.payments:refund only the simulator has it',
      'link  #5 POST /payments/sales/migrateCardOnFile: $._links.payments:partialRefund only the simulator has it',
      'link  #5 POST /payments/sales/migrateCardOnFile: $._links.payments:reversal only the simulator has it',
      'link  #6 POST /payments/sales/migrateCardOnFile: $._links.payments:refund only the simulator has it',
      'link  #6 POST /payments/sales/migrateCardOnFile: $._links.payments:partialRefund only the simulator has it',
      'link  #6 POST /payments/sales/migrateCardOnFile: $._links.payments:reversal only the simulator has it',
      '14 differences in 2 of 10 answers (field missing 4, field extra 4, link 6)',
    ]);
  });

  it('writes the report as the differences, each naming its request', async () => {
    const har = await recordSession({ vendor: 'worldpay', ...storeOptions('wp2') }, (proxy) => runSession(proxy, MERCHANT, [], 'worldpay'));
    const report = await verify({ har, options: storeOptions('wp2-verify') });
    expect(report.differences).toEqual([{ kind: 'status', index: 1, method: 'POST', path: '/tokens', at: '', recorded: '400', simulator: '415' }, { kind: 'errorName', index: 1, method: 'POST', path: '/tokens', at: '', recorded: 'bodyDoesNotMatchSchema', simulator: 'headerHasInvalidValue' }]);
  });
});

describe('record', () => {
  it('rewrites the upstream links to its own address and keeps only the username of a credential', async () => {
    const har = readHar(await recordSession(storeOptions('links'), (proxy) => runSession(proxy, MERCHANT, [CARD])));
    const upstream = /from (http:\/\/\S+)$/.exec(har.log.comment)?.[1] as string;
    const text = JSON.stringify(har.log.entries);
    const proxy = new URL(har.log.entries[0]?.request.url as string).origin;
    expect(upstream).not.toBe(proxy);
    expect(text).not.toContain(upstream);
    expect(text).toContain(`"href\\":\\"${proxy}/tokens/`);
    const authorizations = new Set(har.log.entries.flatMap((e) => e.request.headers.filter((h) => h.name === 'Authorization').map((h) => h.value)));
    // merchant: with no password, for the right password and the wrong one alike.
    expect([...authorizations]).toEqual(['Basic bWVyY2hhbnQ6']);
    expect(text).not.toContain(Buffer.from('merchant:secret').toString('base64'));
    expect(text).not.toContain('4444333322221111');
  });

  it('records a compressed request body decoded and redacted, and replays it compressed again (gzip, deflate, br)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'token-sim-record-')), 'compressed.har');
    const upstream = await startSimulator({ port: 0, ...storeOptions('compressed') }, { writeErr: () => undefined });
    const recording = await record({ upstream: upstream.url, out });
    const type = 'application/vnd.service.tokens-v1.hal+json';
    const codings: [string, (b: Buffer) => Buffer][] = [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]];
    const cards = ['4444333322221111', '5555555555554444', '4917610000000000'];
    try {
      for (const [i, [coding, encode]] of codings.entries()) {
        const body = JSON.stringify({
          paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: cards[i], cardExpiryDate: { month: 5, year: 2035 } },
          merchant: { entity: 'default' },
        });
        const answer = await fetch(`${recording.url}/tokens`, {
          method: 'POST',
          headers: { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, 'Content-Type': type, Accept: type, 'Content-Encoding': coding },
          body: encode(Buffer.from(body)),
        });
        expect([coding, answer.status]).toEqual([coding, 201]);
        await answer.text();
      }
    } finally {
      await recording.close();
      await upstream.close();
    }
    const entries = (JSON.parse(readFileSync(out, 'utf8')) as { log: { entries: { request: { postData?: { text: string } } }[] } }).log.entries;
    const numbers = entries.map((e) => (JSON.parse(e.request.postData?.text ?? '{}') as { paymentInstrument: { cardNumber: string } }).paymentInstrument.cardNumber);
    // Readable, redacted stand-ins: the same length and BIN, never the number sent.
    expect(numbers.map((n, i) => [n.length, n.slice(0, 6), n === cards[i]])).toEqual(cards.map((c) => [16, c.slice(0, 6), false]));
    expect(readFileSync(out, 'utf8')).not.toContain('4444333322221111');
    expect(await verify({ har: out, options: storeOptions('compressed-verify') })).toEqual({ requests: 3, differences: [], counts: {} });
  });

  it('leaves a valid HAR after every exchange', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'token-sim-record-')), 'valid.har');
    const upstream = await startSimulator({ port: 0, ...storeOptions('valid') }, { writeErr: () => undefined });
    const recording = await record({ upstream: upstream.url, out });
    try {
      expect(readHar(out).log.entries).toEqual([]);
      for (const n of [1, 2, 3]) {
        const answer = await fetch(`${recording.url}/nowhere`, { headers: { Accept: 'application/json' } });
        await answer.text();
        // The entry is written once the answer is sent: read the file until it holds it; every read parses.
        let entries = readHar(out).log.entries;
        for (let i = 0; i < 200 && entries.length < n; i++) {
          await new Promise((r) => setTimeout(r, 5));
          entries = readHar(out).log.entries;
        }
        expect(entries).toHaveLength(n);
      }
    } finally {
      await recording.close();
      await upstream.close();
    }
    expect(readHar(out).log.entries.map((e) => e.response.status)).toEqual([404, 404, 404]);
  });

  it('records an https upstream it trusts through --upstream-ca, and refuses one it does not trust', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-record-tls-'));
    const upstream = await startSimulator({ port: 0, tls: true, tlsDir: dir, ...storeOptions('tls') }, { writeErr: () => undefined });
    const errors: string[] = [];
    const trusted = await record({ upstream: upstream.url, out: join(dir, 'trusted.har'), upstreamCa: readFileSync(upstream.caFile as string, 'utf8') });
    const untrusted = await record({ upstream: upstream.url, out: join(dir, 'untrusted.har') }, (line) => errors.push(line));
    try {
      expect((await fetch(`${trusted.url}/nowhere`)).status).toBe(404);
      const refused = await fetch(`${untrusted.url}/nowhere`);
      expect(refused.status).toBe(502);
      expect(await refused.text()).toMatch(/^token-sim record: the upstream did not answer \(.*certificate.*\)\n$/);
      expect(errors).toEqual([expect.stringMatching(/^token-sim record: GET \/nowhere: the upstream did not answer \(.*certificate.*\); not recorded$/)]);
    } finally {
      await trusted.close();
      await untrusted.close();
      await upstream.close();
    }
    expect(readHar(join(dir, 'trusted.har')).log.entries.map((e) => e.response.status)).toEqual([404]);
    expect(readHar(join(dir, 'untrusted.har')).log.entries).toEqual([]);
  });
});

describe('the library (src/index.ts)', () => {
  it('records with record() and verifies with verify(), given a parsed HAR as well as a path', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'token-sim-record-')), 'lib.har');
    const upstream = await libraryStart({ port: 0, vendor: 'worldpay', ...storeOptions('lib') });
    const recording = await libraryRecord({ upstream: upstream.url, out, port: 0 });
    try {
      await runSession(recording.url, MERCHANT, [CARD], 'worldpay');
    } finally {
      await recording.close();
      await upstream.close();
    }
    expect(recording.exchanges()).toBe(10);
    expect(await libraryVerify({ har: readHar(out), options: { vendor: 'worldpay', ...storeOptions('lib-verify') } })).toEqual({ requests: 10, differences: [], counts: {} });
    expect((await libraryVerify({ har: out, options: storeOptions('lib-default') })).counts).toEqual({ status: 8, errorName: 8 });
  });
});

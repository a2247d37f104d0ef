/** `token-sim record` and `token-sim verify` in-process (issue 27): lines, exit codes, --report, the options after --. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startSimulator } from '../../src/simulator/server.js';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';
import { recordSession, runSession } from '../support/recorded-session.js';

const MERCHANT = { user: 'merchant', password: 'secret' };
const CARD = { cardNumber: '4444333322221111', cvc: '123', cardHolderName: 'Sherlock Holmes' };

describe('token-sim verify', () => {
  it('prints the summary alone and exits 0 when there is no difference', async () => {
    const har = await recordSession({}, (proxy) => runSession(proxy, MERCHANT, [CARD]));
    const run = runCli(['verify', har]);
    expect(await exitCodeOf(run)).toBe(0);
    expect(run.lines).toEqual(['out: no difference in 10 answers']);
  });

  it('starts the simulator with the options after --, read as token-sim reads them', async () => {
    const har = await recordSession({ vendor: 'worldpay' }, (proxy) => runSession(proxy, MERCHANT, [], 'worldpay'));
    const same = runCli(['verify', har, '--', '--vendor', 'worldpay']);
    expect(await exitCodeOf(same)).toBe(0);
    expect(same.lines).toEqual(['out: no difference in 3 answers']);
    const bad = runCli(['verify', har, '--', '--vendor', 'worldpay', '--bogus']);
    expect(await exitCodeOf(bad)).toBe(2);
    expect(bad.err).toEqual(["token-sim: unknown option '--bogus'"]);
  });

  it('prints one line per difference and the summary, writes --report, and exits 1', async () => {
    const har = await recordSession({ vendor: 'worldpay' }, (proxy) => runSession(proxy, MERCHANT, [], 'worldpay'));
    const report = join(dirname(har), 'report.json');
    const run = runCli(['verify', '--report', report, har]);
    expect(await exitCodeOf(run)).toBe(1);
    expect(run.out).toEqual([
      'status  #1 POST /tokens: recorded 400, simulator 415',
      'errorName  #1 POST /tokens: recorded bodyDoesNotMatchSchema, simulator headerHasInvalidValue',
      '2 differences in 1 of 3 answers (status 1, errorName 1)',
    ]);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual({
      requests: 3,
      differences: [
        { kind: 'status', index: 1, method: 'POST', path: '/tokens', at: '', recorded: '400', simulator: '415' },
        { kind: 'errorName', index: 1, method: 'POST', path: '/tokens', at: '', recorded: 'bodyDoesNotMatchSchema', simulator: 'headerHasInvalidValue' },
      ],
      counts: { status: 1, errorName: 1 },
    });
  });

  it('says in one line when the file is no recording, and exits 2', async () => {
    const har = await recordSession({}, () => Promise.resolve());
    const notHar = join(dirname(har), 'not.har');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(notHar, '{"log":{}}');
    const run = runCli(['verify', notHar]);
    expect(await exitCodeOf(run)).toBe(2);
    expect(run.err).toEqual(['token-sim: not a HAR 1.2 recording: $.log.entries: Invalid input: expected array, received undefined']);
  });
});

describe('token-sim record', () => {
  it('says where it listens, records until stopped, and says how many exchanges the file holds', async () => {
    const upstream = await startSimulator({ port: 0 }, { writeErr: () => undefined });
    const out = join(dirname(await recordSession({}, () => Promise.resolve())), 'cli.har');
    try {
      const run = runCli(['record', '--upstream', upstream.url, '--port', '0', '--out', out]);
      await run.returned;
      const url = /^token-sim record listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(run.out[0] ?? '')?.[1] as string;
      expect(run.out[1]).toBe(`token-sim record: recording ${upstream.url} to ${out}`);
      expect((await fetch(`${url}/nowhere`)).status).toBe(404);
      expect(await run.stop()).toBe(0);
      expect(run.out[2]).toBe(`token-sim record: 1 exchanges in ${out}`);
      expect((JSON.parse(readFileSync(out, 'utf8')) as { log: { entries: unknown[] } }).log.entries).toHaveLength(1);
    } finally {
      await upstream.close();
    }
  });

  it('refuses an upstream that is no http(s) URL, in one line', async () => {
    const run = runCli(['record', '--upstream', 'ftp://x', '--out', '/tmp/x.har', '--port', '0']);
    expect(await exitCodeOf(run)).toBe(2);
    expect(run.err).toEqual(['token-sim: --upstream must be an http:// or https:// URL, not "ftp://x"']);
  });
});

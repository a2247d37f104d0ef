/**
 * The token-sim CLI in-process, through the source: main(argv, io) with a fake io. What needs a real
 * process (signals, the binary's exit codes) is in bin.process.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeOf, runCli, startCli, TOKEN_TYPE } from '../support/cli-in-process.js';

describe('the token-sim CLI', () => {
  it('with --port 0 prints the URL of a free port first, creates tokens on the --now clock, writes one JSON log line per request, and exits 0 when stopped', async () => {
    const { run, url } = await startCli(['--port', '0', '--seed', 'cli', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'json']);
    let code: number;
    try {
      expect(run.out).toEqual([`token-sim listening on ${url}`]);
      expect(url).not.toMatch(/:0$/);
      expect((await fetch(`${url}/_sim/health`)).status).toBe(200);
      const res = await fetch(`${url}/tokens`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, 'Content-Type': TOKEN_TYPE, Accept: TOKEN_TYPE },
        body: JSON.stringify({
          paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 1, year: 2031 } },
          merchant: { entity: 'default' },
        }),
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { tokenExpiryDateTime: string; tokenPaymentInstrument: { href: string } };
      expect(body.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
      expect(body.tokenPaymentInstrument.href.startsWith(`${url}/tokens/`)).toBe(true);
    } finally {
      code = await run.stop('SIGTERM');
    }
    expect(code).toBe(0);
    expect(run.exitCodes).toEqual([0]);
    expect(run.err).toHaveLength(2);
    const logLines = run.err.map((line) => JSON.parse(line) as { method: string; path: string; status: number });
    expect(logLines[0]).toMatchObject({ method: 'GET', path: '/_sim/health', status: 200 });
    expect(logLines[1]).toMatchObject({ method: 'POST', path: '/tokens', status: 201 });
  });

  it.each([
    [['--profile', 'forever'], /profile/],
    [['--now', 'yesterday-ish'], /--now/],
    [['--now', '0000-06-01T00:00:00Z'], /--now .*range/],
    [['--token-lifetime', 'seven days'], /--token-lifetime/],
    [['--token-extension', 'P0D'], /--token-extension/],
    [['--port', '70000'], /port/],
    [['--bogus'], /unknown option/],
    [['--user', 'nocolon'], /--user/],
    [['--fixtures', '/nonexistent/fixtures.json'], /fixtures/],
    [['--log', 'loud'], /log/],
  ])('refuses %p with one line on stderr, nothing on stdout, and exit code 2', async (args, pattern) => {
    const run = runCli(args);
    expect(await exitCodeOf(run)).toBe(2);
    expect(run.exitCodes).toEqual([2]);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(run.stdout()).toBe('');
  });

  it.each([['--version'], ['-V']])('prints just the package version for %s and exits 0', async (flag) => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const run = runCli([flag]);
    expect(await exitCodeOf(run)).toBe(0);
    expect(run.exitCodes).toEqual([0]);
    expect(run.stdout()).toBe(`${version}\n`);
    expect(run.stderr()).toBe('');
  });

  it('prints help mentioning --token-lifetime and exits 0', async () => {
    const run = runCli(['--help']);
    expect(await exitCodeOf(run)).toBe(0);
    expect(run.stdout()).toMatch(/--token-lifetime/);
  });
});

describe('the token-sim CLI with a fixtures file', () => {
  it('refuses an invalid fixtures file with every problem and its JSONPath on one line, exit code 2', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'token-sim-')), 'fixtures.json');
    writeFileSync(file, JSON.stringify({ credentials: [], entities: {}, bins: [{ prefix: 'x' }] }));
    const run = runCli(['--fixtures', file]);
    expect(await exitCodeOf(run)).toBe(2);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    for (const path of ['$.credentials', '$.bins[0].prefix', '$.bins[0].network', '$.bins[0].countryCode', '$.bins[0].fundingType']) {
      expect(lines[0]).toContain(path);
    }
  });
});

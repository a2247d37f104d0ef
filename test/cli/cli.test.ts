/** Starts the real CLI (bin/token-sim.js on the built dist/) as a separate process. */
import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listening, run, TOKEN_TYPE } from '../support/cli.js';

describe('the token-sim CLI', () => {
  it('listens on a free port with --port 0, serves tokens, and exits 0 on SIGTERM', async () => {
    const r = run(['--port', '0', '--seed', 'cli', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'json']);
    const url = await listening(r);
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
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    const logLine = JSON.parse(r.stderr().trim().split('\n').at(-1)!) as { method: string; path: string; status: number };
    expect(logLine).toMatchObject({ method: 'POST', path: '/tokens', status: 201 });
  });

  it('exits 0 on SIGINT', async () => {
    const r = run(['--port', '0', '--log', 'silent']);
    await listening(r);
    r.child.kill('SIGINT');
    expect(await r.exited).toBe(0);
  });

  it.each([
    [['--profile', 'forever'], /profile/],
    [['--now', 'yesterday-ish'], /--now/],
    [['--token-lifetime', 'seven days'], /--token-lifetime/],
    [['--token-extension', 'P0D'], /--token-extension/],
    [['--port', '70000'], /port/],
    [['--bogus'], /unknown option/],
    [['--user', 'nocolon'], /--user/],
    [['--fixtures', '/nonexistent/fixtures.json'], /fixtures/],
    [['--log', 'loud'], /log/],
  ])('refuses %p with one line on stderr and exit code 2', async (args, pattern) => {
    const r = run(args);
    expect(await r.exited).toBe(2);
    const lines = r.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(r.stdout()).toBe('');
  });

  it('refuses a port in use with exit code 2', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const r = run(['--port', String(port)]);
      expect(await r.exited).toBe(2);
      expect(r.stderr()).toMatch(/already in use/);
    } finally {
      blocker.close();
    }
  });

  it('prints help and exits 0', async () => {
    const r = run(['--help']);
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toMatch(/--token-lifetime/);
  });
});

describe('the token-sim CLI with a fixtures file', () => {
  it('refuses an invalid fixtures file with every problem and its JSONPath on one line, exit code 2', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'token-sim-')), 'fixtures.json');
    writeFileSync(file, JSON.stringify({ credentials: [], entities: {}, bins: [{ prefix: 'x' }] }));
    const r = run(['--fixtures', file]);
    expect(await r.exited).toBe(2);
    const lines = r.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    for (const path of ['$.credentials', '$.bins[0].prefix', '$.bins[0].network', '$.bins[0].countryCode', '$.bins[0].fundingType']) {
      expect(lines[0]).toContain(path);
    }
  });
});

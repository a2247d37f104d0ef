/**
 * The real binary (bin/token-sim.js on the built dist/) as a separate process, only where a process is the
 * point: real signals, and the exit code the process ends with. Everything else is tested in-process.
 */
import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listening, run, TOKEN_TYPE, type Run } from '../support/cli.js';

const DELAY_MS = 1000;

/** After a failed assertion, a process still running would outlive the test. */
function killIfRunning(r: Run): void {
  if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
}

describe('the token-sim process', () => {
  it(`on SIGTERM answers the request in flight in full (201 after a ${DELAY_MS} ms scripted delay), logs it, and only then exits 0`, async () => {
    const scenario = join(mkdtempSync(join(tmpdir(), 'token-sim-')), 'slow.yaml');
    writeFileSync(scenario, `name: slow-creates\nrules:\n  - when:\n      operation: createToken\n    then:\n      delayMs: ${DELAY_MS}\n`);
    const r = run(['--port', '0', '--seed', 'cli', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'json', '--scenario', scenario]);
    try {
      const url = await listening(r);
      const sent = performance.now();
      const response = fetch(`${url}/tokens`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, 'Content-Type': TOKEN_TYPE, Accept: TOKEN_TYPE },
        body: JSON.stringify({
          paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 1, year: 2031 } },
          merchant: { entity: 'default' },
        }),
      });
      // Well inside the delay, the request has long been received: it is in flight when the signal comes.
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS / 4));
      expect(r.child.kill('SIGTERM')).toBe(true);
      const exitedAfter = r.exited.then((code) => ({ code, ms: performance.now() - sent }));
      const res = await response;
      expect(res.status).toBe(201);
      expect(((await res.json()) as { tokenExpiryDateTime: string }).tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
      const { code, ms } = await exitedAfter;
      expect(code).toBe(0);
      // Timers may fire a millisecond early; what matters is that the process did not exit at the signal.
      expect(ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
      const logLine = JSON.parse(r.stderr().trim().split('\n').at(-1)!) as { method: string; path: string; status: number };
      expect(logLine).toMatchObject({ method: 'POST', path: '/tokens', status: 201 });
    } finally {
      killIfRunning(r);
    }
  });

  it('exits 0 on SIGINT', async () => {
    const r = run(['--port', '0', '--log', 'silent']);
    try {
      await listening(r);
      expect(r.child.kill('SIGINT')).toBe(true);
      expect(await r.exited).toBe(0);
    } finally {
      killIfRunning(r);
    }
  });

  it('refuses a port in use with "already in use" on stderr and exit code 2', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const r = run(['--port', String(port)]);
      expect(await r.exited).toBe(2);
      expect(r.stderr()).toMatch(/already in use/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

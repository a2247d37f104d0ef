/**
 * Durability (issue 13, defects 10 and 11), in-process: snapshots sealed with the state key rather than the seed,
 * the library's stateFile / stateInterval / stateKey, periodic saves only when something changed, the CLI's
 * checks and its TOKEN_SIM_STATE_KEY. The real signals and kill -9 are in test/cli/state-file.process.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../src/config/options.js';
import { createSimulator } from '../../src/simulator/compose.js';
import type { ComposedSimulator } from '../../src/simulator/compose.js';
import { startSimulator } from '../../src/simulator/server.js';
import { exitCodeOf, runCli, startCli } from '../support/cli-in-process.js';

const QUIET = { writeErr: (): void => undefined };
const BASE = { now: '2030-01-01T00:00:00Z', frozen: true } as const;

function createTokens(sim: ComposedSimulator, tenant: string, n: number): void {
  for (let i = 0; i < n; i++) {
    sim.vault.create(tenant, { entity: 'default', card: { number: `44443333${String(i).padStart(8, '0')}`, holderName: 'A', expiryDate: { month: 1, year: 2031 } } });
  }
}

const stateDir = (): string => mkdtempSync(join(tmpdir(), 'token-sim-state-'));

describe('snapshots sealed with the state key (defect 11)', () => {
  it('a snapshot sealed with a state key does not open in a simulator that only shares the seed', () => {
    const sealed = createSimulator({ ...BASE, seed: 'shared', stateKey: 'a-state-key-of-20-chars' }, QUIET);
    createTokens(sealed, 'merchant', 2);
    const snapshot = sealed.exportState();
    const seedOnly = createSimulator({ ...BASE, seed: 'shared' }, QUIET);
    expect(() => seedOnly.importState(snapshot)).toThrow(/sealedCardNumber was not sealed by a simulator with this seed or state key/);
    const otherKey = createSimulator({ ...BASE, seed: 'shared', stateKey: 'another-key-of-20-chars' }, QUIET);
    expect(() => otherKey.importState(snapshot)).toThrow(/sealedCardNumber/);
    const sameKey = createSimulator({ ...BASE, seed: 'other seed', stateKey: 'a-state-key-of-20-chars' }, QUIET);
    sameKey.importState(snapshot);
    expect(sameKey.tokens().map((t) => t.tokenId)).toEqual(sealed.tokens().map((t) => t.tokenId));
  });

  it('the state key leaves the seed in charge of ids and refs', () => {
    const a = createSimulator({ ...BASE, seed: 's' }, QUIET);
    const b = createSimulator({ ...BASE, seed: 's', stateKey: 'a-state-key-of-20-chars' }, QUIET);
    createTokens(a, 'merchant', 1);
    createTokens(b, 'merchant', 1);
    expect(b.tokens()).toEqual(a.tokens());
  });
});

describe('state options', () => {
  it.each([
    [{ stateKey: 'short' }, '--state-key must be at least 16 characters, without leading or trailing spaces'],
    [{ stateKey: ' sixteen-chars-and-more' }, '--state-key must be at least 16 characters, without leading or trailing spaces'],
    [{ stateInterval: 'PT0S' }, "--state-interval must be an ISO 8601 duration of at least 10 ms such as PT10S, got 'PT0S'"],
    [{ stateInterval: '10s' }, "--state-interval must be an ISO 8601 duration of at least 10 ms such as PT10S, got '10s'"],
    [{ stateFile: ' ' }, '--state-file must be a path'],
  ])('refuses %j', (options, message) => {
    expect(() => resolveConfig(options)).toThrow(message);
  });

  it('takes PT10S as the default interval', () => {
    expect(resolveConfig({}).stateIntervalMs).toBe(10_000);
    expect(resolveConfig({ stateInterval: 'PT0.5S' }).stateIntervalMs).toBe(500);
  });
});

describe('the library with stateFile', () => {
  it('saves on close and restores at the next start, with hrefs and a key file of mode 0600; no seed', async () => {
    const file = join(stateDir(), 'state.json');
    const first = await startSimulator({ ...BASE, port: 0, stateFile: file }, QUIET);
    createTokens(first, 'merchant', 3);
    // A change through the API marks the state changed.
    await fetch(`${first.url}/_sim/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"by":"PT1H"}' });
    const tokens = first.tokens();
    await first.close();
    expect(statSync(`${file}.key`).mode & 0o777).toBe(0o600);
    const second = await startSimulator({ ...BASE, port: 0, stateFile: file }, QUIET);
    try {
      const hrefOf = (t: (typeof tokens)[number]): string => new URL((t.tokenPaymentInstrument as { href: string }).href).pathname;
      const paths = (list: typeof tokens): string[] => list.map((t) => `${t.tokenId} ${hrefOf(t)}`);
      expect(paths(second.tokens())).toEqual(paths(tokens));
      expect(second.clock.now()).toBe('2030-01-01T01:00:00Z');
      const href = hrefOf(tokens[0]!);
      const res = await fetch(`${second.url}${href}`, {
        headers: { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: 'application/vnd.service.tokens-v1.hal+json' },
      });
      expect(res.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('writes the state file as one line of JSON ending in one newline; GET /_sim/state ends without one', async () => {
    const file = join(stateDir(), 'state.json');
    const sim = await startSimulator({ ...BASE, port: 0, stateFile: file }, QUIET);
    createTokens(sim, 'merchant', 2);
    const answer = await (await fetch(`${sim.url}/_sim/state`)).text();
    await fetch(`${sim.url}/_sim/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"by":"PT1H"}' });
    await sim.close();
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith(']}\n')).toBe(true);
    expect(text).toBe(`${JSON.stringify(JSON.parse(text))}\n`);
    expect(answer.endsWith(']}')).toBe(true);
  });

  it('saves every interval only when a request changed something', async () => {
    const file = join(stateDir(), 'state.json');
    const sim = await startSimulator({ ...BASE, port: 0, stateFile: file, stateInterval: 'PT0.05S' }, QUIET);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(existsSync(file)).toBe(false);
      await fetch(`${sim.url}/_sim/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"by":"PT2H"}' });
      const deadline = Date.now() + 5_000;
      while (!existsSync(file) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { clock: { now: string } };
      expect(saved.clock.now).toBe('2030-01-01T02:00:00Z');
      const mtime = statSync(file).mtimeMs;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(statSync(file).mtimeMs).toBe(mtime);
    } finally {
      await sim.close();
    }
  });

  it('refuses a state file whose key file cannot be created', () => {
    const file = join(stateDir(), 'missing-dir', 'state.json');
    expect(() => createSimulator({ stateFile: file }, QUIET)).toThrow(/--state-file: the key file .*state\.json\.key cannot be created \(ENOENT\)/);
  });

  it('reports a failed save in one line and keeps serving', async () => {
    const dir = stateDir();
    const file = join(dir, 'state.json');
    const lines: string[] = [];
    const sim = await startSimulator({ ...BASE, port: 0, stateFile: file, stateKey: 'a-state-key-of-20-chars' }, { writeErr: (line) => void lines.push(line) });
    // A directory where the file should be: the rename fails.
    mkdirSync(file);
    await fetch(`${sim.url}/_sim/clock`);
    await sim.close();
    expect(lines).toEqual([expect.stringMatching(/^token-sim: cannot save the state to .*state\.json \(EISDIR\); retrying every interval$/)]);
    expect(existsSync(`${file}.tmp-${process.pid}`)).toBe(false);
  });
});

describe('the CLI with --state-file', () => {
  it('takes the state key from TOKEN_SIM_STATE_KEY, without a warning, and writes no key file', async () => {
    const file = join(stateDir(), 'state.json');
    const env = { TOKEN_SIM_STATE_KEY: 'a-state-key-of-20-chars' };
    const { run, url } = await startCli(['--port', '0', '--log', 'silent', '--state-file', file], { env });
    await fetch(`${url}/_sim/clock`);
    expect(await run.stop('SIGTERM')).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.key`)).toBe(false);
    expect(run.stderr()).toBe('');
  });

  it('warns that --state-key on the command line is visible in ps', async () => {
    const { run } = await startCli(['--port', '0', '--log', 'silent', '--state-key', 'a-state-key-of-20-chars']);
    expect(await run.stop('SIGTERM')).toBe(0);
    expect(run.err).toEqual(['token-sim: warning: --state-key on the command line is visible in ps; use TOKEN_SIM_STATE_KEY']);
  });

  it('refuses a short TOKEN_SIM_STATE_KEY with exit 2', async () => {
    const run = runCli(['--port', '0', '--log', 'silent'], { env: { TOKEN_SIM_STATE_KEY: 'short' } });
    expect(await exitCodeOf(run)).toBe(2);
    expect(run.err).toEqual([expect.stringMatching(/^token-sim: TOKEN_SIM_STATE_KEY must be at least 16 characters/)]);
  });
});

describe('restoring a running clock', () => {
  it('moves a clock that follows real time on by the time since the save', async () => {
    const file = join(stateDir(), 'state.json');
    const first = await startSimulator({ now: '2030-01-01T00:00:00Z', port: 0, stateFile: file }, QUIET);
    await fetch(`${first.url}/_sim/clock`);
    await first.close();
    // The file was saved an hour ago.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, anHourAgo, anHourAgo);
    const second = createSimulator({ stateFile: file }, QUIET);
    const now = Date.parse(second.clock.now());
    expect(now).toBeGreaterThanOrEqual(Date.parse('2030-01-01T01:00:00Z'));
    expect(now).toBeLessThan(Date.parse('2030-01-01T01:01:00Z'));
  });

  it("moves a tenant's own running clock on too, and leaves a frozen one where it was", async () => {
    const file = join(stateDir(), 'state.json');
    const users = ['frozen:pw'];
    const first = await startSimulator({ ...BASE, users, port: 0, stateFile: file }, QUIET);
    first.tenant('merchant').clock.set('2031-01-01T00:00:00Z', false);
    first.tenant('frozen').clock.set('2032-01-01T00:00:00Z', true);
    await fetch(`${first.url}/_sim/clock`);
    await first.close();
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, anHourAgo, anHourAgo);
    const second = createSimulator({ users, stateFile: file }, QUIET);
    const running = Date.parse(second.tenant('merchant').clock.now());
    expect(running).toBeGreaterThanOrEqual(Date.parse('2031-01-01T01:00:00Z'));
    expect(running).toBeLessThan(Date.parse('2031-01-01T01:01:00Z'));
    expect(second.tenant('frozen').clock.now()).toBe('2032-01-01T00:00:00Z');
    expect(second.clock.now()).toBe('2030-01-01T00:00:00Z');
  });
});

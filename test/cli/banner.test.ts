/**
 * The start-up banner on a terminal, and colour: NO_COLOR and FORCE_COLOR for the banner, the pretty log and
 * --help. The terminal and the environment are the fake io's, never the real ones.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { bannerLines } from '../../src/cli/io.js';
import { eventually, exitCodeOf, runCli, startCli, type CliTerminal } from '../support/cli-in-process.js';

const ESCAPE = '\u001b[';
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** Colour codes out: the text as it reads. */
const plain = (line: string): string => line.split(ESCAPE).map((part, i) => (i === 0 ? part : part.replace(/^\d+m/, ''))).join('');

/** The lines `token-sim --port 0 <args>` writes on start, in order (`out: ` / `err: `), then stops it. */
async function startLines(args: readonly string[], terminal: CliTerminal): Promise<{ url: string; lines: string[] }> {
  const { run, url } = await startCli(['--port', '0', '--log', 'silent', ...args], terminal);
  try {
    return { url, lines: [...run.lines] };
  } finally {
    await run.stop();
  }
}

describe('the banner', () => {
  it('follows the listening line on a terminal: API, credentials, control API, dashboard, docs; stdout stays one line', async () => {
    const { url, lines } = await startLines(['--user', 'qa:pa:ss'], { isTTY: true, env: { NO_COLOR: '1' } });
    expect(lines).toEqual([
      `out: token-sim listening on ${url}`,
      `err: token-sim ${version} (a sandbox for test cards; Ctrl+C stops it)`,
      `err:   API         ${url}`,
      'err:   Credentials merchant:secret, qa:pa:ss',
      `err:   Control API ${url}/_sim`,
      `err:   Dashboard   ${url}/_sim/ui`,
      'err:   Store       memory',
      expect.stringMatching(/^err: {3}Docs {8}\/.*\/docs\/README\.md$/),
    ]);
    const docs = lines.at(-1)!.replace(/^err: {3}Docs {8}/, '');
    expect(existsSync(docs)).toBe(true);
  });

  it('is not written off a terminal (tests, CI, pipes)', async () => {
    const { url, lines } = await startLines([], { isTTY: false, env: { NO_COLOR: '' } });
    expect(lines).toEqual([`out: token-sim listening on ${url}`]);
  });

  it('says the control API and dashboard need the admin token, without showing it', async () => {
    const { lines } = await startLines(['--admin-token', 'hush'], { isTTY: true, env: {} });
    const control = lines.map(plain).find((l) => l.includes('Control API'));
    expect(control).toMatch(/\/_sim \(Authorization: Bearer <admin token>\)$/);
    expect(lines.join('\n')).not.toContain('hush');
  });

  it('lists five credentials and counts the rest', async () => {
    const users = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((u) => ['--user', `${u}:pw`]);
    const { lines } = await startLines(users, { isTTY: true, env: {} });
    expect(lines.map(plain)).toContain('err:   Credentials merchant:secret, a:pw, b:pw, c:pw, d:pw and 2 more');
  });

  it('is coloured on a terminal, and not with a non-empty NO_COLOR or with FORCE_COLOR=0', async () => {
    expect((await startLines([], { isTTY: true, env: {} })).lines.slice(1).join('\n')).toContain(ESCAPE);
    expect((await startLines([], { isTTY: true, env: { NO_COLOR: '' } })).lines.slice(1).join('\n')).toContain(ESCAPE);
    for (const env of [{ NO_COLOR: '1' }, { FORCE_COLOR: '0' }, { FORCE_COLOR: 'false' }, { NO_COLOR: 'x', FORCE_COLOR: '1' }]) {
      const { lines } = await startLines([], { isTTY: true, env });
      expect(lines).toHaveLength(8);
      expect(lines.join('\n')).not.toContain(ESCAPE);
    }
  });

  it('is written, in colour, off a terminal with FORCE_COLOR', async () => {
    const { url, lines } = await startLines([], { isTTY: false, env: { FORCE_COLOR: '1' } });
    expect(lines[0]).toBe(`out: token-sim listening on ${url}`);
    expect(lines).toHaveLength(8);
    expect(lines[2]).toContain(ESCAPE);
    expect(plain(lines[2]!)).toBe(`err:   API         ${url}`);
  });
});

describe('the banner of a shared store', () => {
  const info = { version: '1.2.3', url: 'http://127.0.0.1:8080', credentials: new Map([['merchant', { password: 'secret' }]]), adminToken: false };

  it('shows the Redis URL without its password, the key prefix, and the workers', () => {
    const store = { kind: 'redis', url: 'redis://app:hunter2@cache.internal:6380/2', db: 2, tls: false } as const;
    const lines = bannerLines({ ...info, store, storePrefix: 'team-a:', workers: 3 }, false);
    expect(lines).toContain('  Store       redis://app:***@cache.internal:6380/2 (keys team-a:*)');
    expect(lines).toContain('  Workers     3');
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('has no workers line for one process', () => {
    const lines = bannerLines({ ...info, store: { kind: 'memory' }, storePrefix: 'token-sim:', workers: 1 }, false);
    expect(lines).toContain('  Store       memory');
    expect(lines.some((line) => line.includes('Workers'))).toBe(false);
  });
});

describe('colour in the pretty request log', () => {
  /** The log line of one GET /_sim/health. */
  async function logLine(terminal: CliTerminal): Promise<string> {
    const { run, url } = await startCli(['--port', '0', '--log', 'pretty'], terminal);
    try {
      await fetch(`${url}/_sim/health`);
      const logged = (l: string) => plain(l).startsWith('GET /_sim/health 200');
      await eventually(() => run.err.some(logged));
      return run.err.find(logged)!;
    } finally {
      await run.stop();
    }
  }

  it('is on with FORCE_COLOR off a terminal, and off with NO_COLOR on a terminal', async () => {
    expect(await logLine({ isTTY: false, env: { FORCE_COLOR: '1' } })).toContain(`${ESCAPE}32m200`);
    expect(await logLine({ isTTY: true, env: { NO_COLOR: '1' } })).not.toContain(ESCAPE);
    expect(await logLine({ isTTY: true, env: {} })).toContain(`${ESCAPE}32m200`);
    expect(await logLine({ isTTY: false, env: {} })).not.toContain(ESCAPE);
  });
});

describe('colour in --help', () => {
  async function help(terminal: CliTerminal): Promise<string> {
    const run = runCli(['--help'], terminal);
    expect(await exitCodeOf(run)).toBe(0);
    return run.stdout();
  }

  it('styles titles and options on a colour terminal, unless NO_COLOR; FORCE_COLOR styles it anywhere', async () => {
    const coloured = await help({ helpColors: true, env: {} });
    expect(coloured).toContain(`${ESCAPE}1mOptions:${ESCAPE}0m`);
    expect(coloured).toContain(`${ESCAPE}36m--config <file>${ESCAPE}0m`);
    expect(plain(coloured)).toBe(await help({ helpColors: false, env: {} }));
    expect(await help({ helpColors: true, env: { NO_COLOR: '1' } })).not.toContain(ESCAPE);
    expect(await help({ helpColors: false, env: { FORCE_COLOR: '1' } })).toContain(ESCAPE);
    expect(await help({ helpColors: false, env: {} })).not.toContain(ESCAPE);
  });
});

/**
 * Issue 13 in the CLI: `--drain-timeout` bounds the drain on a stop signal (defect 8), and secrets stay off the
 * command line (defect 12): TOKEN_SIM_ADMIN_TOKEN, `--admin-token-file`, TOKEN_SIM_USERS, and a warning when
 * the admin token is given as a flag. In-process (main with a fake io); the real signal is in
 * drain.process.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { refusal, startCli, tempFile } from '../support/cli-in-process.js';
import { createOutcome } from '../support/outcome.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const QUIET = ['--port', '0', '--log', 'silent'];
const WARNING = 'token-sim: warning: --admin-token on the command line is visible in ps; use TOKEN_SIM_ADMIN_TOKEN or --admin-token-file';


/** The status of GET /_sim/clock with this bearer token (none: no Authorization). */
async function clockStatus(url: string, bearer?: string): Promise<number> {
  const res = await fetch(`${url}/_sim/clock`, bearer === undefined ? {} : { headers: { Authorization: `Bearer ${bearer}` } });
  return res.status;
}

describe('--drain-timeout', () => {
  it('cuts a request still in a scripted delay when the drain timeout passes after a stop, and exits 0', async () => {
    const scenario = tempFile('slow.json', JSON.stringify({ name: 'slow', rules: [{ when: { operation: 'createToken' }, then: { delayMs: 5_000 } }] }));
    const { run, url } = await startCli([...QUIET, '--seed', 'd', '--now', '2030-01-01T00:00:00Z', '--frozen', '--scenario', scenario, '--drain-timeout', 'PT0.5S']);
    const answer = createOutcome(url);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopping = performance.now();
    expect(await run.stop('SIGTERM')).toBe(0);
    const took = performance.now() - stopping;
    expect(await answer).toBe('cut');
    expect(took).toBeGreaterThan(400);
    expect(took).toBeLessThan(2_000);
  });

  it.each([
    [['--drain-timeout', 'soon'], {}, "token-sim: --drain-timeout must be an ISO 8601 duration such as PT65S, got 'soon'"],
    [[], { TOKEN_SIM_DRAIN_TIMEOUT: '65' }, "token-sim: TOKEN_SIM_DRAIN_TIMEOUT must be an ISO 8601 duration such as PT65S, got '65'"],
  ])('refuses %p %p with one line and exit code 2', async (args, env, line) => {
    expect(await refusal([...QUIET, ...args], env)).toBe(line);
  });
});

describe('secrets off the command line', () => {
  it('takes the admin token from TOKEN_SIM_ADMIN_TOKEN, without a warning', async () => {
    const { run, url } = await startCli(QUIET, { env: { TOKEN_SIM_ADMIN_TOKEN: 'from-env' } });
    try {
      expect(await clockStatus(url)).toBe(401);
      expect(await clockStatus(url, 'from-env')).toBe(200);
      expect(run.err).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it.each([
    ['with a trailing newline', 'from-file\n'],
    ['with a trailing CRLF', 'from-file\r\n'],
    ['without a trailing newline', 'from-file'],
  ])('takes the admin token from --admin-token-file, a file %s', async (_, text) => {
    const { run, url } = await startCli([...QUIET, '--admin-token-file', tempFile('admin-token', text)]);
    try {
      expect(await clockStatus(url)).toBe(401);
      expect(await clockStatus(url, 'from-file')).toBe(200);
      expect(run.err).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it('takes --admin-token-file from TOKEN_SIM_ADMIN_TOKEN_FILE', async () => {
    const { run, url } = await startCli(QUIET, { env: { TOKEN_SIM_ADMIN_TOKEN_FILE: tempFile('admin-token', 'env-file\n') } });
    try {
      expect(await clockStatus(url, 'env-file')).toBe(200);
      expect(await clockStatus(url, 'other')).toBe(401);
    } finally {
      await run.stop();
    }
  });

  it.each([
    ['empty', ''],
    ['only a newline', '\n'],
  ])('refuses an admin token file that is %s', async (_, text) => {
    const file = tempFile('admin-token', text);
    expect(await refusal([...QUIET, '--admin-token-file', file])).toBe(`token-sim: --admin-token-file ${file} is empty`);
  });

  it.each([
    ['two lines', 'one\ntwo\n'],
    ['a space', 'one two'],
    ['two trailing newlines', 'one\n\n'],
  ])('refuses an admin token file holding %s', async (_, text) => {
    const file = tempFile('admin-token', text);
    expect(await refusal([...QUIET, '--admin-token-file', file])).toBe(
      `token-sim: --admin-token-file ${file} must hold the token alone on one line, without spaces`,
    );
  });

  it('refuses an admin token file it cannot read, named by the flag or the variable', async () => {
    expect(await refusal([...QUIET, '--admin-token-file', '/nonexistent/admin-token'])).toBe(
      'token-sim: --admin-token-file /nonexistent/admin-token cannot be read (ENOENT)',
    );
    expect(await refusal(QUIET, { TOKEN_SIM_ADMIN_TOKEN_FILE: '/nonexistent/admin-token' })).toBe(
      'token-sim: TOKEN_SIM_ADMIN_TOKEN_FILE names a file that cannot be read: /nonexistent/admin-token (ENOENT)',
    );
  });

  it('refuses an unreadable admin token file (no permission)', async () => {
    const file = tempFile('admin-token', 'secret\n');
    chmodSync(file, 0o000);
    // root reads any file: there is nothing to refuse then.
    if (process.getuid?.() === 0) return;
    expect(await refusal([...QUIET, '--admin-token-file', file])).toBe(`token-sim: --admin-token-file ${file} cannot be read (EACCES)`);
  });

  it('refuses an admin token given twice, as a token and as a file', async () => {
    const file = tempFile('admin-token', 'a\n');
    expect(await refusal([...QUIET, '--admin-token-file', file], { TOKEN_SIM_ADMIN_TOKEN: 'b' })).toBe(
      'token-sim: the admin token is given twice (--admin-token and --admin-token-file): set one',
    );
  });

  it('reads adminTokenFile from a config file, against the file\'s folder', async () => {
    const token = tempFile('admin-token', 'from-config\n');
    const config = join(dirname(token), 'token-sim.json');
    writeFileSync(config, JSON.stringify({ adminTokenFile: 'admin-token', drainTimeout: 'PT1S' }));
    const { run, url } = await startCli([...QUIET, '--config', config]);
    try {
      expect(await clockStatus(url, 'from-config')).toBe(200);
      expect(await clockStatus(url)).toBe(401);
    } finally {
      await run.stop();
    }
  });

  it('warns that --admin-token on the command line is visible in ps, without showing the token', async () => {
    const { run, url } = await startCli([...QUIET, '--admin-token', 'hush']);
    try {
      expect(await clockStatus(url, 'hush')).toBe(200);
      expect(run.err).toEqual([WARNING]);
    } finally {
      await run.stop();
    }
  });

  it('takes credentials from TOKEN_SIM_USERS, one per line when a password holds a comma', async () => {
    const { run, url } = await startCli(QUIET, { env: { TOKEN_SIM_USERS: 'qa:p,w\nops:pw2\n' } });
    try {
      const status = async (user: string, password: string): Promise<number> =>
        (await fetch(`${url}/tokens/x`, { headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, Accept: TOKEN_TYPE } })).status;
      expect(await status('qa', 'p,w')).not.toBe(401);
      expect(await status('ops', 'pw2')).not.toBe(401);
      expect(await status('qa', 'p')).toBe(401);
      expect(run.err).toEqual([]);
    } finally {
      await run.stop();
    }
  });
});

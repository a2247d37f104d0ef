/**
 * The CLI's HTTPS options (contract 4.3, decision 0053): the listening line names https://, the next stdout line
 * names the CA file; the options come from flags, TOKEN_SIM_* variables or a config file alike; a wrong
 * combination is one line and exit 2.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusal, runCli, tempFile } from '../support/cli-in-process.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-cli-tls-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function startLines(args: string[], env: Record<string, string> = {}): Promise<readonly string[]> {
  const run = runCli(args, { env });
  await run.returned;
  if (!run.serving()) throw new Error(`did not start: ${[...run.out, ...run.err].join(' | ')}`);
  const lines = [...run.out];
  expect(await run.stop('SIGTERM')).toBe(0);
  return lines;
}

describe('token-sim --tls', () => {
  it('prints the https listening line, then the CA file on the next stdout line', async () => {
    const dir = tempDir();
    const out = await startLines(['--tls', '--tls-dir', dir, '--port', '0', '--log', 'silent']);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^token-sim listening on https:\/\/127\.0\.0\.1:\d+$/);
    expect(out[1]).toBe(`token-sim CA certificate: ${join(dir, 'ca.pem')}`);
  });

  it('takes TOKEN_SIM_TLS and TOKEN_SIM_TLS_DIR, and the keys tls and tlsDir of a config file', async () => {
    const byEnv = tempDir();
    expect((await startLines(['--port', '0', '--log', 'silent'], { TOKEN_SIM_TLS: 'true', TOKEN_SIM_TLS_DIR: byEnv }))[1]).toBe(`token-sim CA certificate: ${join(byEnv, 'ca.pem')}`);
    const byFile = tempDir();
    const config = tempFile('token-sim.yaml', `tls: true\ntlsDir: ${byFile}\n`);
    expect((await startLines(['--config', config, '--port', '0', '--log', 'silent']))[1]).toBe(`token-sim CA certificate: ${join(byFile, 'ca.pem')}`);
  });

  it('prints no CA line with a certificate of the user’s own', async () => {
    const made = tempDir();
    await startLines(['--tls', '--tls-dir', made, '--port', '0', '--log', 'silent']);
    const out = await startLines(['--tls-cert', join(made, 'server.pem'), '--tls-key', join(made, 'server-key.pem'), '--port', '0', '--log', 'silent']);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^token-sim listening on https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses a certificate without its key, and a file that cannot be read, in one line', async () => {
    const made = tempDir();
    await startLines(['--tls', '--tls-dir', made, '--port', '0', '--log', 'silent']);
    expect(await refusal(['--port', '0', '--tls-cert', join(made, 'server.pem')])).toBe('token-sim: --tls-cert and --tls-key go together: give both, or neither');
    expect(await refusal(['--port', '0', '--tls-key', join(made, 'nothing.pem'), '--tls-cert', join(made, 'server.pem')])).toMatch(/^token-sim: --tls-key names a file that cannot be read: .*nothing\.pem \(ENOENT\)$/);
    expect(await refusal(['--port', '0'], { TOKEN_SIM_WEBHOOK_CA: join(made, 'nothing.pem') })).toMatch(/^token-sim: TOKEN_SIM_WEBHOOK_CA names a file that cannot be read: .*nothing\.pem \(ENOENT\)$/);
  });
});

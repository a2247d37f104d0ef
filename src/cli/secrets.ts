/**
 * Secrets off the command line (decision 0023): the admin token from a file (`--admin-token-file`), and a
 * warning when it is given as a flag, which every user of the machine can read in `ps`.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/fixtures.js';

export const ADMIN_TOKEN_ON_COMMAND_LINE =
  'token-sim: warning: --admin-token on the command line is visible in ps; use TOKEN_SIM_ADMIN_TOKEN or --admin-token-file';

export const STATE_KEY_ON_COMMAND_LINE = 'token-sim: warning: --state-key on the command line is visible in ps; use TOKEN_SIM_STATE_KEY';

/** The token a file holds: its content without one trailing newline; empty, unreadable or not one word → refused. */
export function readAdminTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--admin-token-file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const token = text.replace(/\r?\n$/, '');
  if (token === '') throw new ConfigError(`--admin-token-file ${path} is empty`);
  if (/\s/.test(token)) throw new ConfigError(`--admin-token-file ${path} must hold the token alone on one line, without spaces`);
  return token;
}

/** The admin token from `--admin-token` or `--admin-token-file` (whatever their source); both → refused. */
export function adminTokenOf(adminToken: string | undefined, adminTokenFile: string | undefined): string | undefined {
  if (adminTokenFile === undefined) return adminToken;
  if (adminToken !== undefined) throw new ConfigError('the admin token is given twice (--admin-token and --admin-token-file): set one');
  return readAdminTokenFile(adminTokenFile);
}

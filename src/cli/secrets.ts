/**
 * Secrets off the command line (decision 0023): the admin token from a file (`--admin-token-file`), and a
 * warning when it is given as a flag, which every user of the machine can read in `ps`.
 */
import { ConfigError, readConfigText } from '../config/fixtures.js';

export const ADMIN_TOKEN_ON_COMMAND_LINE =
  'token-sim: warning: --admin-token on the command line is visible in ps; use TOKEN_SIM_ADMIN_TOKEN or --admin-token-file';

export const STATE_KEY_ON_COMMAND_LINE = 'token-sim: warning: --state-key on the command line is visible in ps; use TOKEN_SIM_STATE_KEY';

/**
 * The admin token from `--admin-token` or `--admin-token-file` (whatever their source); both → refused. A file's
 * token is its content without one trailing newline; empty, unreadable or not one word → refused.
 */
export function adminTokenOf(adminToken: string | undefined, adminTokenFile: string | undefined): string | undefined {
  if (adminTokenFile === undefined) return adminToken;
  if (adminToken !== undefined) throw new ConfigError('the admin token is given twice (--admin-token and --admin-token-file): set one');
  const token = readConfigText(adminTokenFile, (why) => `--admin-token-file ${adminTokenFile} cannot be read (${why})`).replace(/\r?\n$/, '');
  if (token === '') throw new ConfigError(`--admin-token-file ${adminTokenFile} is empty`);
  if (/\s/.test(token)) throw new ConfigError(`--admin-token-file ${adminTokenFile} must hold the token alone on one line, without spaces`);
  return token;
}

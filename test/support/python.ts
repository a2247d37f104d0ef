/**
 * The Python example's test (test/examples/python.process.test.ts) runs `python3` from PATH (or `PYTHON`).
 * Without it the suite is skipped, saying so in one line; with CI=true (set by .ci/run, which installs
 * Debian's python3) it never skips: a missing python3 fails the suite there. The same rule as the
 * dashboard's browser tests (test/support/browser.ts) and the Redis store's (test/support/redis.ts).
 */
import { describe } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Python 3 executable: `PYTHON`, or `python3` on PATH. */
export const PYTHON = process.env.PYTHON || 'python3';

/** Why `command` cannot run as a Python 3 here, or undefined when it can. */
export function pythonMissing(command: string): string | undefined {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return command.includes('/') ? `python3 not found at ${command}` : `${command} not found on PATH`;
  if (run.error !== undefined || run.status !== 0) {
    const why = (run.stderr || run.error?.message || `exit status ${String(run.status)}`).trim().split('\n')[0];
    return `${command} --version failed (${why})`;
  }
  if (!/^Python 3\./.test(run.stdout)) return `${command} --version did not say "Python 3.…" (${run.stdout.trim().split('\n')[0] ?? ''})`;
  return undefined;
}

/**
 * The line that says the Python suite is skipped, or undefined when it runs: it runs when python3 is
 * there, and always under CI=true (where a missing python3 fails it instead).
 */
export function pythonSkipLine(file: string, reason: string | undefined, ci: string | undefined): string | undefined {
  if (reason === undefined || ci === 'true') return undefined;
  return `SKIPPED the Python example (${file}): ${reason}; install it (apt-get install python3) or set PYTHON. CI (CI=true) never skips it.`;
}

/**
 * `describe`, or `describe.skip` with one line saying which suite is skipped and why when there is no
 * python3 outside CI. Call it with the test file's `import.meta.url`.
 */
export function pythonDescribe(file: string): typeof describe | typeof describe.skip {
  const line = pythonSkipLine(relative(ROOT, fileURLToPath(file)), pythonMissing(PYTHON), process.env.CI);
  if (line === undefined) return describe;
  // Straight to stderr: jest shows no console output of a suite whose tests are all skipped.
  process.stderr.write(`${line}\n`);
  return describe.skip;
}

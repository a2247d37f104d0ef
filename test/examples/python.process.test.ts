/**
 * The Python example of docs/other-languages.md (examples/python), run as a reader runs it: `python3 -m unittest -v`
 * in that folder, with the standard library alone. First its fixture starts the built CLI (bin/token-sim.js on
 * dist/) and stops it with SIGTERM (the fixture fails the run unless it exits 0); the output must be the one the
 * page shows, but for the time. Then TOKEN_SIM_URL names a simulator started here, as a container would be: the
 * tests must pass against it, send it their requests, and leave it running. Needs python3 (test/support/python.ts):
 * skipped without it outside CI, never under CI=true.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplesRunBy } from '../support/doc-examples.js';
import { listening, run, type Run } from '../support/cli.js';
import { PYTHON, pythonDescribe } from '../support/python.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEST = 'test/examples/python.process.test.ts';
const PAGE = 'docs/other-languages.md';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `python3 -m unittest -v` in examples/python, with the node that runs jest first on PATH, and `extra` set. */
function unittest(extra: Record<string, string>): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, PYTHONDONTWRITEBYTECODE: '1', ...extra };
  if (extra.TOKEN_SIM_URL === undefined) delete env.TOKEN_SIM_URL;
  const child = spawn(PYTHON, ['-m', 'unittest', '-v'], { cwd: join(root, 'examples', 'python'), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** unittest's report with the time it took left out: `Ran 4 tests in …s`. */
const withoutTime = (report: string): string => report.replace(/^(Ran \d+ tests?) in [\d.]+s$/m, '$1 in …s').trimEnd();

const TESTS = [
  'test_1_create_a_token',
  'test_2_sale_with_the_token_settles_a_day_later',
  'test_3_the_token_expires_after_7_days',
  'test_4_a_scenario_refuses_large_sales',
];

pythonDescribe(import.meta.url)('the Python example (examples/python), run with python3 -m unittest -v', () => {
  let fromCli: Result;
  let external: Run;
  let externalUrl: string;
  let againstExternal: Result;

  beforeAll(async () => {
    fromCli = await unittest({});
    external = run(['--port', '0', '--log', 'silent']);
    externalUrl = await listening(external);
    againstExternal = await unittest({ TOKEN_SIM_URL: externalUrl });
  }, 120_000);

  afterAll(async () => {
    if (external && external.child.exitCode === null) {
      external.child.kill('SIGTERM');
      await external.exited;
    }
  });

  it('passes against the CLI its fixture starts and stops: 4 tests ran, OK', () => {
    expect({ code: fromCli.code, stdout: fromCli.stdout }).toEqual({ code: 0, stdout: '' });
    for (const name of TESTS) expect(fromCli.stderr).toContain(`${name} (test_token_sim.TokenSimExample.${name}) ... ok\n`);
    expect(fromCli.stderr).toMatch(/^Ran 4 tests in [\d.]+s\n\nOK\n$/m);
  });

  it(`prints what ${PAGE} shows`, () => {
    const [shown, ...more] = examplesRunBy(TEST, PAGE);
    expect(more).toEqual([]);
    expect(shown?.command?.body).toBe('cd examples/python\npython3 -m unittest -v\n');
    expect(withoutTime(fromCli.stderr)).toBe(withoutTime(shown!.output.body));
  });

  it('passes against a running simulator named by TOKEN_SIM_URL, sends it its requests, and leaves it running', async () => {
    expect(againstExternal.code).toBe(0);
    expect(againstExternal.stderr).toMatch(/^Ran 4 tests in [\d.]+s\n\nOK\n$/m);
    // The metrics count from the start and survive the tests' resets: each of the 4 tests created one token here.
    const metrics = await (await fetch(`${externalUrl}/_sim/metrics`)).text();
    expect(metrics).toMatch(/^token_sim_requests_total\{operation="createToken",status="201"\} 4$/m);
    expect(external.child.exitCode).toBeNull();
    expect((await fetch(`${externalUrl}/_sim/health`)).status).toBe(200);
  });
});

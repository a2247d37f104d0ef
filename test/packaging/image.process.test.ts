/**
 * What of the container image runs without a container engine (decision 0054): `npm run test:image` skips without
 * podman, saying so in one line, except under CI=true where it fails; and the image's HEALTHCHECK command, as the
 * Dockerfile writes it, passes against a listening simulator and fails without one. The image itself is built
 * and run by `npm run test:image` (.ci/run).
 */
import { describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../src/index.js';
import { ROOT, readDockerfile } from '../support/dockerfile.js';

const SCRIPT = join(ROOT, 'scripts', 'test-image.mjs');
const NO_PODMAN = '/nonexistent/podman';

/** Runs a command with this environment (without the CI variables of the run that runs this test). */
function runWith(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const own = { ...process.env };
  delete own.CI;
  delete own.PODMAN;
  const res = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...own, ...env }, timeout: 20_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('npm run test:image without podman', () => {
  it('skips outside CI, in one line saying what is missing and how to install it, and exits 0', () => {
    const res = runWith([SCRIPT], { PODMAN: NO_PODMAN });
    expect(res.status).toBe(0);
    expect(res.stdout).toBe(
      `SKIPPED test:image (npm run test:image): podman not found at ${NO_PODMAN}; install podman, runc and mmdebstrap ` +
        '(apt-get install podman runc mmdebstrap) or set PODMAN. CI (CI=true) never skips it.\n',
    );
  });

  it('fails under CI=true instead', () => {
    const res = runWith([SCRIPT], { PODMAN: NO_PODMAN, CI: 'true' });
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(new RegExp(`^\\ntest:image FAILED after [0-9.]+ s: podman not found at ${NO_PODMAN}\\n$`));
  });
});

/** The exit code of a node run with this environment, run beside this process's event loop (the simulator answers from it). */
async function exitCodeOf(args: string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

describe("the image's HEALTHCHECK command", () => {
  const command = JSON.parse(/ CMD (\[.*\])$/.exec(readDockerfile().one('HEALTHCHECK') ?? '')?.[1] ?? '[]') as string[];

  it('runs node, which passes while the simulator answers on TOKEN_SIM_PORT and fails once it is gone', async () => {
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    const sim = await startSimulator({ port: 0, log: 'silent' });
    const port = new URL(sim.url).port;
    try {
      expect(await exitCodeOf(command.slice(1), { TOKEN_SIM_PORT: port })).toBe(0);
    } finally {
      await sim.close();
    }
    expect(await exitCodeOf(command.slice(1), { TOKEN_SIM_PORT: port })).toBe(1);
  });

  it('asks over HTTPS when TOKEN_SIM_TLS is on (the simulator started with --tls), and fails over HTTP there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-health-tls-'));
    const sim = await startSimulator({ port: 0, log: 'silent', tls: true, tlsDir: dir });
    const port = new URL(sim.url).port;
    try {
      expect(await exitCodeOf(command.slice(1), { TOKEN_SIM_PORT: port, TOKEN_SIM_TLS: 'true' })).toBe(0);
      expect(await exitCodeOf(command.slice(1), { TOKEN_SIM_PORT: port, TOKEN_SIM_TLS: '' })).toBe(1);
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

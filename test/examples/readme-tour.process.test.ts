/**
 * The README's five-minute tour, run as a reader runs it: the CLI from bin/ with the tour's own arguments,
 * then every shell block of the tour in one bash session (curl, jq, node, jest), each block's output
 * compared with the output the README shows under it. Only the port (0 here, 8080 in the README) and the
 * timings jest prints may differ. Needs bash, curl and jq, as the tour does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, type FencedBlock } from '../support/markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const tour = readme.slice(readme.indexOf('## A five-minute tour'), readme.indexOf('\n## Documentation'));

/** A shell block and the output the README shows under it. */
interface Step {
  /** The tour heading it sits under, such as `4. Make a sale`. */
  heading: string;
  commands: string;
  shown: string;
}

/** The tour in order: files it asks to save ("Save this as `tour.mjs`:"), the start command, the steps. */
function readTour(): { files: Map<string, string>; start: string; steps: Step[] } {
  const blocks = fencedBlocks(tour);
  const files = new Map<string, string>();
  const steps: Step[] = [];
  let start = '';
  blocks.forEach((block: FencedBlock, i) => {
    const lastParagraph = block.before.trim().split('\n\n').pop() ?? '';
    const file = /`([\w.-]+\.(?:m?js|json|ya?ml))`[^`]*:$/.exec(lastParagraph);
    if (block.lang !== 'sh' && block.lang !== 'text' && file) files.set(file[1]!, block.body);
    if (block.lang !== 'sh') return;
    const next = blocks[i + 1];
    const heading = [...tour.slice(0, tour.indexOf(block.body)).matchAll(/^### (.+)$/gm)].pop()?.[1] ?? '';
    if (start === '') start = block.body.trim();
    else if (next?.lang === 'text') steps.push({ heading, commands: block.body, shown: next.body });
  });
  return { files, start, steps };
}

const { files, start, steps } = readTour();
const MARK = '@@readme-step@@';

function normalise(output: string, port: string): string {
  return output
    .replaceAll(`localhost:${port}`, 'localhost:8080')
    .replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8080')
    .replace(/ \(\d+ ms\)$/gm, ' (… ms)')
    .replace(/^Time: .*$/gm, 'Time: …')
    .trimEnd();
}

const tools = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version']).status !== 0);
// Without the tour's tools the suite is skipped, saying why; CI (CI=true, set by .ci/run, which installs
// them) never skips it.
const skip = tools.length > 0 && process.env.CI !== 'true';
if (skip) console.warn(`SKIPPED the README tour (test/examples/readme-tour.process.test.ts): it needs ${tools.join(', ')}, not installed here`);

(skip ? describe.skip : describe)('the README tour, run', () => {
  let dir: string;
  let cli: ChildProcess;
  let listening: string;
  let outputs: string[] = [];

  beforeAll(async () => {
    if (tools.length > 0) throw new Error(`the README tour needs ${tools.join(', ')}`);
    dir = mkdtempSync(join(tmpdir(), 'token-sim-readme-'));
    // The reader's folder: the clone's scenarios/, and token-sim installed as a dependency for tour.mjs.
    symlinkSync(join(root, 'scenarios'), join(dir, 'scenarios'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'token-sim'));
    for (const [name, text] of files) writeFileSync(join(dir, name), text);

    const args = start.replace(/^npx token-sim\s*/, '').split(/\s+/);
    cli = spawn(process.execPath, [join(root, 'bin', 'token-sim.js'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, TOKEN_SIM_PORT: '0' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    listening = await new Promise<string>((resolve, reject) => {
      let out = '';
      cli.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      cli.on('exit', (code) => reject(new Error(`token-sim exited with ${String(code)}`)));
    });
    const port = /:(\d+)$/.exec(listening)![1]!;

    const script = steps
      .map((step) => `printf '%s\\n' '${MARK}'\n${step.commands.replaceAll('localhost:8080', `localhost:${port}`)}`)
      .join('\n')
      .replaceAll('npx jest', join(root, 'node_modules', '.bin', 'jest'));
    const run = spawnSync('bash', ['-c', `exec 2>&1\n${script}\n`], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 60_000,
    });
    outputs = `${run.stdout}`
      .split(`${MARK}\n`)
      .slice(1)
      .map((output) => normalise(output, port));
  }, 90_000);

  afterAll(async () => {
    if (cli && cli.exitCode === null) {
      const exited = new Promise((resolve) => cli.once('exit', resolve));
      cli.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts the simulator as the README shows', () => {
    expect(start).toBe('npx token-sim --seed demo --now 2030-01-01T00:00:00Z --frozen');
    expect(listening).toMatch(/^token-sim listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(tour).toContain('token-sim listening on http://127.0.0.1:8080');
  });

  it('has the steps the contract asks for: a token, a sale, a tenant outage, the journal, the clock, the library, the runners', () => {
    const all = steps.map((s) => s.commands).join('\n');
    for (const part of ['/tokens', 'migrateCardOnFile', '/_sim/scenarios?tenant=merchant', 'scenarios/outage.yaml', '/_sim/requests?operation=createToken', '{"by":"P8D"}', 'node tour.mjs', 'node remote.mjs', 'npx jest']) {
      expect(all).toContain(part);
    }
    expect([...files.keys()]).toEqual(['tour.mjs', 'remote.mjs', 'jest.config.js', 'tokens.test.js']);
  });

  it.each(steps.map((step, i) => [step.heading, step.commands.split('\n').at(-2) ?? '', i, step] as const))('"%s", up to `%s`, prints what the README shows', (_heading, _last, i, step) => {
    expect(outputs[i]).toBe(normalise(step.shown, '8080'));
  });
});

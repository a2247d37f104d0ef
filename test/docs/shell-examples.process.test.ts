/**
 * The shell examples of docs/*.md, run as a reader runs them and compared with the output each page shows.
 * Two kinds (test/support/doc-examples.ts reads the marks):
 * - a page marked `<!-- examples on this page are run by test/docs/shell-examples.process.test.ts -->` runs as
 *   one bash session, every `sh` block in order (helpers defined once stay defined), files the page asks to
 *   save (`save this as \`demo.yaml\`:`) saved where they appear; a block that is only `npx token-sim …`
 *   stops the running simulator and starts a new one, as the page asks the reader to;
 * - an example marked `<!-- run by test/docs/shell-examples.process.test.ts after: <lines> -->` runs in a bash
 *   of its own, after those lines (the set-up its page describes in prose).
 * The simulator is the CLI from bin/ (npx token-sim), on a free port of four digits where the pages say 8080 (so
 * lengths in the output stay the same). In a page session curl behaves as on a terminal: no progress meter,
 * and an answer without a final newline is followed by one (docs/walkthrough.md shows each answer on its own
 * line, and says so); an example of its own runs the real curl as it is. Output is compared
 * with test/support/shown-output.ts: `…` stands for any text, and real times, durations and dates are left
 * out. Needs bash, curl and jq, as the pages do.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blocksOf, docPages, examplesRunBy, readPage, root, whereIs, type Block, type Example } from '../support/doc-examples.js';
import { matchesShown, withoutVarying } from '../support/shown-output.js';

const TEST = 'test/docs/shell-examples.process.test.ts';
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** A port of four digits that is free now (the pages' 8080 has four). */
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 2000 + Math.floor(Math.random() * 7000);
    if (port === 8080) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port of four digits');
}

/** The arguments of a block that only starts the simulator (`npx token-sim --seed demo …`), else undefined. */
function startArgs(text: string): string | undefined {
  const m = /^npx token-sim((?: +[^;&|<>\s]+)*)$/.exec(text.trim());
  if (!m || /^ +(validate|openapi)\b/.test(m[1]!)) return undefined;
  return m[1]!.trim();
}

/** A `$ ` block: its commands, and the output it shows. */
function promptParts(body: string): { commands: string; shown: string } {
  const lines = body.trimEnd().split('\n');
  return {
    commands: lines.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)).join('\n'),
    shown: lines.filter((l) => !l.startsWith('$ ')).join('\n'),
  };
}
const hasPrompt = (block: Block): boolean => block.body.split('\n').some((l) => l.startsWith('$ '));

/** The file a page asks to save a block as (`save this as \`demo.yaml\`:`, `` `shop.json`, with …: ``). */
function savedAs(block: Block): string | undefined {
  const lastParagraph = block.before.trim().split('\n\n').pop() ?? '';
  return /`([\w.-]+\.(?:json|ya?ml))`[^`]*:$/.exec(lastParagraph)?.[1];
}

const MARK = (line: number): string => `@@block ${line}@@`;

/** What every session runs first: the simulator's start and stop, `npx token-sim`, and a terminal's curl. */
function preamble(): string {
  return `
exec 2>&1
__sim=
__stop() { if [ -n "$__sim" ]; then kill -TERM "$__sim" 2>/dev/null; wait "$__sim" 2>/dev/null; __sim=; fi; }
trap __stop EXIT
__start() {
  __stop
  # A new file: the last simulator's "listening" line must not be read as this one's.
  rm -f .sim.out .sim.err
  node "$__root/bin/token-sim.js" "$@" > .sim.out 2> .sim.err < /dev/null &
  __sim=$!
  for _ in $(seq 1 300); do
    grep -q 'listening on' .sim.out 2>/dev/null && return 0
    kill -0 "$__sim" 2>/dev/null || break
    sleep 0.05
  done
  echo "token-sim $* did not start: $(cat .sim.err)"
  exit 1
}
npx() { if [ "$1" = token-sim ]; then shift; node "$__root/bin/token-sim.js" "$@"; else command npx "$@"; fi; }
# In a page session, curl as on a terminal, where the page shows each answer on its own line: no progress
# meter (errors still shown), and a final newline after an answer without one.
[ -n "$__own_lines" ] && curl() {
  local quiet=(-sS) arg out
  for arg in "$@"; do if [[ $arg == --silent || $arg =~ ^-[a-zA-Z]*s[a-zA-Z]*$ ]]; then quiet=(); fi; done
  out=$(command curl "\${quiet[@]}" "$@"; printf x)
  out=\${out%x}
  printf '%s' "$out"
  case "$out" in ''|*$'\\n') ;; *) printf '\n' ;; esac
}
`;
}

/** Runs a bash script in a fresh folder; answers its output, split at the block marks. */
function runSession(script: string, port: number, ownLines: boolean): Map<number, string> {
  const dir = mkdtempSync(join(tmpdir(), 'token-sim-docs-'));
  try {
    symlinkSync(join(root, 'scenarios'), join(dir, 'scenarios'));
    symlinkSync(join(root, 'fixtures'), join(dir, 'fixtures'));
    const local = (text: string): string => text.replaceAll('localhost:8080', `localhost:${port}`).replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
    const run = spawnSync('bash', ['-c', `${preamble()}\n${local(script)}\n`], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, LANG: 'C.UTF-8', __root: root, __own_lines: ownLines ? '1' : '', TOKEN_SIM_PORT: String(port) },
      encoding: 'utf8',
      timeout: 150_000,
    });
    if (run.error) throw run.error;
    const outputs = new Map<number, string>();
    const parts = `${run.stdout}`.split(/^@@block (\d+)@@\n/m);
    for (let i = 1; i < parts.length; i += 2) {
      const output = (parts[i + 1] ?? '').replaceAll(`localhost:${port}`, 'localhost:8080').replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8080');
      outputs.set(Number(parts[i]), output);
    }
    outputs.set(-1, parts[0] ?? '');
    return outputs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The script of a command block: its commands, after its mark. */
function commandScript(block: Block): string {
  const commands = hasPrompt(block) ? promptParts(block.body).commands : block.body;
  return `printf '\\n%s\\n' '${MARK(block.line)}'\n${commands}`;
}

/** The script of a whole page, in the page's order. */
function pageScript(page: string): string {
  const parts: string[] = [];
  for (const block of blocksOf(readPage(page))) {
    const start = SHELL.has(block.lang) ? startArgs(block.body) : undefined;
    const file = savedAs(block);
    if (start !== undefined) parts.push(`__start ${start}`);
    else if (SHELL.has(block.lang)) parts.push(commandScript(block));
    else if (file !== undefined) parts.push(`cat > ${file} <<'__DOC_FILE__'\n${block.body}__DOC_FILE__`);
  }
  return parts.join('\n');
}

/** The script of an example of its own: the set-up lines of its mark, then its command. */
function exampleScript(example: Example): string {
  const after = example.mark && 'runBy' in example.mark ? (example.mark.after ?? '') : '';
  const setUp = after
    .split('\n')
    .map((line) => {
      const start = startArgs(line);
      return start === undefined ? line : `__start ${start}`;
    })
    .join('\n');
  return `${setUp}\n${commandScript(example.command!)}`;
}

/** What the example shows: its output block, or the output lines of a `$ ` block. */
function shownOf(example: Example): string {
  return example.output === example.command ? promptParts(example.output.body).shown : example.output.body;
}

const tools = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version']).status !== 0);
// Without the pages' tools the suite is skipped, saying why; CI (CI=true) never skips it.
const skip = tools.length > 0 && process.env.CI !== 'true';
if (skip) console.warn(`SKIPPED the shell examples of docs/ (${TEST}): they need ${tools.join(', ')}, not installed here`);

const examples = docPages().flatMap((page) => examplesRunBy(TEST, page));
const pageSessions = [...new Set(examples.filter((e) => 'runBy' in e.mark! && e.mark.page === true).map((e) => e.page))];
const ownSessions = examples.filter((e) => !('runBy' in e.mark! && e.mark.page === true));

function expectShown(example: Example, printed: string | undefined): void {
  const shown = shownOf(example);
  const json = example.output.lang === 'json';
  if (printed === undefined || !matchesShown(printed, shown, json)) {
    // The whole of both, so that a failure shows what to write on the page.
    expect(`${whereIs(example)}\n${withoutVarying(printed ?? '(no output: the session stopped before this block)')}`).toBe(`${whereIs(example)}\n${withoutVarying(shown)}`);
  }
}

(skip ? describe.skip : describe)('the shell examples of docs/, run', () => {
  it('finds examples to run, every one after a command block', () => {
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect([whereIs(example), example.command !== undefined && SHELL.has(example.command.lang)]).toEqual([whereIs(example), true]);
  });

  describe.each(pageSessions)('%s, as one session', (page) => {
    let outputs: Map<number, string>;
    const pageExamples = examples.filter((e) => e.page === page);

    it('runs to the end', async () => {
      outputs = runSession(pageScript(page), await freePort(), true);
      expect(outputs.get(-1)?.trim()).toBe('');
    }, 180_000);

    it.each(pageExamples.map((e) => [whereIs(e), e] as const))('%s prints what the page shows', (_where, example) => {
      expectShown(example, outputs.get(example.command!.line));
    });

    it('prints nothing for the blocks that show no output', () => {
      const shown = new Set(pageExamples.map((e) => e.command!.line));
      const silent = [...outputs].filter(([line]) => line !== -1 && !shown.has(line));
      expect(silent.filter(([, output]) => output.trim() !== '').map(([line, output]) => `${page}:${line}: ${output}`)).toEqual([]);
    });
  });

  // Each with a bash and a simulator of its own (none yet is no failure: the coverage test holds the pages to their marks).
  const ownCases = ownSessions.map((e) => [whereIs(e), e] as const);
  (ownCases.length > 0 ? it.each(ownCases) : it.skip.each([['none', undefined]]))(
    '%s, after the set-up its mark names, prints what the page shows',
    async (_where, example) => {
      const outputs = runSession(exampleScript(example!), await freePort(), false);
      // The set-up is quiet: anything it prints is a failure of its own.
      expect(outputs.get(-1)?.trim()).toBe('');
      expectShown(example!, outputs.get(example!.command!.line));
    },
    60_000,
  );
});

/**
 * Runs the CLI in-process, through the source: `main(argv, io)` with a fake CliIo that captures the lines
 * written to stdout and stderr, records exit codes, and keeps the stop-signal handler so that a test can
 * call it as SIGINT or SIGTERM would. A simulator that `main` starts is a real server on port 0. The io is no
 * terminal and has an empty environment unless a test says otherwise (CliTerminal): never the real ones.
 */
import { expect } from '@jest/globals';
import type { CliIo } from '../../src/cli/io.js';
import { createProgram, main } from '../../src/cli/main.js';
import type { SimulatorOptions } from '../../src/config/options.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';

export interface CliRun {
  /** The lines written to stdout, in order. */
  readonly out: readonly string[];
  /** The lines written to stderr, in order. */
  readonly err: readonly string[];
  /** Every line in the order written, prefixed `out: ` or `err: `. */
  readonly lines: readonly string[];
  /** stdout as a process would have written it: each line followed by a newline. */
  stdout(): string;
  /** stderr as a process would have written it: each line followed by a newline. */
  stderr(): string;
  /** Every code passed to io.exit, in order (a process stops at the first). */
  readonly exitCodes: readonly number[];
  /** Resolves with the first code passed to io.exit. */
  readonly exited: Promise<number>;
  /** Resolves when main() has returned. */
  readonly returned: Promise<void>;
  /** Whether main registered a stop-signal handler (it does once a simulator is listening). */
  readonly serving: () => boolean;
  /** Calls the stop-signal handler as the signal would, and resolves with the exit code. */
  stop(signal?: 'SIGINT' | 'SIGTERM'): Promise<number>;
}

/** What a test may set of the terminal and the environment; by default no terminal and an empty environment. */
export type CliTerminal = Pick<CliIo, 'isTTY' | 'env' | 'helpColors' | 'helpWidth'>;

/** Starts `token-sim <args>` in-process; main() runs in the background (see `returned`). */
export function runCli(args: readonly string[], terminal: CliTerminal = {}): CliRun {
  const out: string[] = [];
  const err: string[] = [];
  const all: string[] = [];
  const exitCodes: number[] = [];
  let stopHandler: ((signal: string) => void) | undefined;
  let onExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (onExit = resolve));
  const io: CliIo = {
    out: (line) => void (out.push(line), all.push(`out: ${line}`)),
    err: (line) => void (err.push(line), all.push(`err: ${line}`)),
    exit(code) {
      exitCodes.push(code);
      onExit(code);
    },
    onStopSignal(handler) {
      if (stopHandler) throw new Error('main registered a second stop-signal handler');
      stopHandler = handler;
    },
    isTTY: false,
    env: {},
    ...terminal,
  };
  const lines = (ls: readonly string[]): string => ls.map((l) => `${l}\n`).join('');
  const returned = main(args, io);
  return {
    out,
    err,
    lines: all,
    stdout: () => lines(out),
    stderr: () => lines(err),
    exitCodes,
    exited,
    returned,
    serving: () => stopHandler !== undefined,
    async stop(signal = 'SIGTERM') {
      if (!stopHandler) throw new Error('nothing to stop: main registered no stop-signal handler');
      stopHandler(signal);
      return exited;
    },
  };
}

/**
 * The code the process would end with once main() has returned: the first io.exit code, or 0 when main
 * called no exit and left nothing running (a process whose event loop empties exits 0). A simulator left
 * running is stopped and reported as an error.
 */
export async function exitCodeOf(run: CliRun): Promise<number> {
  await run.returned;
  const [first] = run.exitCodes;
  if (first !== undefined) return first;
  if (run.serving()) {
    await run.stop();
    throw new Error(`expected the CLI to end, but it started a simulator: ${run.out.join(' | ')}`);
  }
  return 0;
}

/** Starts `token-sim <args>` in-process and resolves with its URL, the first line on stdout. */
export async function startCli(args: readonly string[], terminal: CliTerminal = {}): Promise<{ run: CliRun; url: string }> {
  const run = runCli(args, terminal);
  await run.returned;
  const match = /^token-sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(run.out[0] ?? '');
  if (!match || !run.serving()) {
    if (run.serving()) await run.stop();
    throw new Error(`did not start (exit codes ${run.exitCodes.join(', ') || 'none'}): ${[...run.out, ...run.err].join(' | ')}`);
  }
  return { run, url: match[1]! };
}

export { eventually, scenarioFile } from './sim.js';

/** A file with this text in a new temporary folder. */
export function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'token-sim-')), name);
  writeFileSync(file, text);
  return file;
}

/** What `token-sim <args>` would start with (options, watched files, workers) and what it wrote to stderr on the way. */
export async function parsedStart(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ options: SimulatorOptions; watch: readonly string[]; workers: number; err: string[] }> {
  const err: string[] = [];
  let started: { options: SimulatorOptions; watch: readonly string[]; workers: number } | undefined;
  const io: CliIo = {
    out: () => undefined,
    err: (line) => void err.push(line),
    exit: (code) => {
      throw new Error(`exit ${code}: ${err.join(' | ')}`);
    },
    onStopSignal: () => undefined,
    env,
  };
  const program = createProgram(io, {
    run: (options, watch, workers) => {
      started = { options, watch, workers };
      return Promise.resolve();
    },
    validate: () => 0,
  });
  await program.parseAsync([...args], { from: 'user' });
  if (!started) throw new Error('the program did not start the simulator');
  return { ...started, err };
}

/** The one line a refused start writes, with exit code 2 and nothing on stdout. */
export async function refusal(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const run = runCli(args, { env });
  expect(await exitCodeOf(run)).toBe(2);
  expect(run.stdout()).toBe('');
  const lines = run.stderr().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

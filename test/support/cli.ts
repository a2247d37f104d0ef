/** Runs the real CLI (bin/token-sim.js on the built dist/) as a separate process. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/token-sim.js', import.meta.url));
export const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';

export interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

export function run(args: string[]): Run {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves with the URL from the first stdout line. */
export async function listening(r: Run): Promise<string> {
  while (!r.stdout().includes('\n')) {
    const ended = await Promise.race([once(r.child.stdout, 'data').then(() => false), r.exited.then(() => true)]);
    if (ended && !r.stdout().includes('\n')) throw new Error(`exited early: ${r.stderr()}`);
  }
  const first = r.stdout().split('\n')[0]!;
  const match = /^token-sim listening on (https?:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  if (!match) throw new Error(`unexpected first line: ${first}`);
  return match[1]!;
}


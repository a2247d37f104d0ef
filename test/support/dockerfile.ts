/**
 * Just enough Dockerfile reading for the tests of the root Dockerfile and of the compose example that builds
 * from it: its instructions (continuation lines joined, comments dropped), each with the stage it belongs to,
 * and a runtime stage's `ENV` and `ARG` values.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Instruction {
  /** Upper case: `FROM`, `RUN`, `ENV`… */
  keyword: string;
  args: string;
  /** 0 for the first FROM's stage; -1 before any FROM (global ARGs). */
  stage: number;
}

export function instructionsOf(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const out: Instruction[] = [];
  let stage = -1;
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const keyword = m[1]!.toUpperCase();
    if (keyword === 'FROM') stage++;
    out.push({ keyword, args: m[2]!.replace(/\s+/g, ' '), stage });
  }
  return out;
}

/** `KEY=value KEY2=value2` (values without spaces or quotes, as the root Dockerfile writes them). */
export function assignmentsOf(args: string): Record<string, string> {
  return Object.fromEntries(args.split(' ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

export interface Dockerfile {
  instructions: Instruction[];
  /** The instructions of the last stage (the image). */
  runtime: Instruction[];
  /** The last stage's `ENV` variables. */
  env: Record<string, string>;
  /** The args of the first instruction of the last stage with this keyword. */
  one: (keyword: string) => string | undefined;
}

export function readDockerfile(path = join(ROOT, 'Dockerfile')): Dockerfile {
  const instructions = instructionsOf(readFileSync(path, 'utf8'));
  const last = Math.max(...instructions.map((i) => i.stage));
  const runtime = instructions.filter((i) => i.stage === last);
  const env = Object.assign({}, ...runtime.filter((i) => i.keyword === 'ENV').map((i) => assignmentsOf(i.args))) as Record<string, string>;
  return { instructions, runtime, env, one: (keyword) => runtime.find((i) => i.keyword === keyword)?.args };
}

/**
 * The walkthroughs run end to end (docs/after-the-sale.md, docs/did-it-happen.md): a bash script of scripts/
 * starts the CLI from bin/ and a webhook receiver on free ports, then runs the page's steps with curl and jq,
 * printing `== <n>. <title>` before each step's output. These read the page's sections and the script's steps,
 * and run the script with the two ports put back to the page's (8080 and 9000).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks } from './markdown.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Each `## <n>. <title>` section of a page: its first shell block, and the last text block (its output). */
export function pageSections(page: string): Map<string, { commands: string; shown: string }> {
  const result = new Map<string, { commands: string; shown: string }>();
  for (const part of readFileSync(join(root, page), 'utf8').split(/^## (?=\d+\. )/m).slice(1)) {
    const title = part.slice(0, part.indexOf('\n'));
    const blocks = fencedBlocks(part);
    const shown = blocks.filter((b) => b.lang === 'text').pop();
    const commands = blocks.filter((b) => b.lang === 'sh').shift();
    result.set(title, { commands: commands?.body.trim() ?? '', shown: shown?.body.trimEnd() ?? '' });
  }
  return result;
}

/** A script's steps: the commands after each `step '<title>'` line. */
export function scriptSteps(script: string): Map<string, string> {
  const parts = readFileSync(join(root, script), 'utf8').split(/^step '([^']+)'\n/m);
  const result = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) result.set(parts[i]!, (parts[i + 1] ?? '').trim());
  return result;
}

/** The tools a walkthrough script needs that are not installed here. */
export const missingTools = (): string[] => ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version']).status !== 0);

/** Runs a walkthrough script; its process and each step's output, the ports put back to 8080 and 9000. */
export function runWalkthrough(script: string): { run: SpawnSyncReturns<string>; outputs: Map<string, string> } {
  const run = spawnSync('bash', [join(root, script)], { cwd: root, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 60_000 });
  const sim = /^token-sim listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(run.stdout)?.[1] ?? 'none';
  const hooks = /^receiver listening on http:\/\/127\.0\.0\.1:(\d+)\/hooks$/m.exec(run.stdout)?.[1] ?? 'none';
  const outputs = new Map<string, string>();
  for (const m of run.stdout.matchAll(/^== (.+)\n((?:(?!== ).*\n)*)/gm)) {
    outputs.set(m[1]!, m[2]!.replaceAll(`127.0.0.1:${sim}`, '127.0.0.1:8080').replaceAll(`127.0.0.1:${hooks}`, '127.0.0.1:9000').trimEnd());
  }
  return { run, outputs };
}

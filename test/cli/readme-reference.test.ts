/** The CLI reference (docs/cli.md) is `token-sim --help` itself, so the two cannot drift. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

/** The fenced ```text blocks of a section of docs/cli.md. */
function textBlocks(section: string): string[] {
  const start = page.indexOf(`## ${section}\n`);
  if (start === -1) throw new Error(`docs/cli.md has no "## ${section}" section`);
  const end = page.indexOf('\n## ', start + 3);
  const body = page.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? '');
}

describe('the CLI reference in docs/cli.md', () => {
  it('shows exactly what `token-sim --help` prints', async () => {
    const r = runCli(['--help']);
    expect(await exitCodeOf(r)).toBe(0);
    expect(textBlocks('Reference')[0]).toBe(r.stdout().trimEnd());
  });

  it('shows exactly what `token-sim validate --help` prints', async () => {
    const r = runCli(['validate', '--help']);
    expect(await exitCodeOf(r)).toBe(0);
    expect(textBlocks('Reference')).toContain(r.stdout().trimEnd());
  });
});

/** The README's CLI reference is `token-sim --help` itself, so the two cannot drift. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The fenced ```text blocks of a README section. */
function textBlocks(section: string): string[] {
  const start = readme.indexOf(`## ${section}\n`);
  if (start === -1) throw new Error(`README has no "## ${section}" section`);
  const end = readme.indexOf('\n## ', start + 3);
  const body = readme.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/```text\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? '');
}

describe('the README CLI reference', () => {
  it('shows exactly what `token-sim --help` prints', async () => {
    const r = runCli(['--help']);
    expect(await exitCodeOf(r)).toBe(0);
    expect(textBlocks('CLI reference')[0]).toBe(r.stdout().trimEnd());
  });

  it('shows exactly what `token-sim validate --help` prints', async () => {
    const r = runCli(['validate', '--help']);
    expect(await exitCodeOf(r)).toBe(0);
    expect(textBlocks('CLI reference')).toContain(r.stdout().trimEnd());
  });
});

/**
 * The CLI reference (docs/cli.md) is `token-sim --help` itself, so the two cannot drift; the banner it shows is
 * the one a terminal gets (on port 8080; the Docs line names the page in the reader's copy).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { exitCodeOf, runCli, startCli } from '../support/cli-in-process.js';
import { optionRows } from '../../src/cli/option-table.js';

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

  it('shows the banner a terminal gets', async () => {
    const { run, url } = await startCli(['--port', '0', '--log', 'silent'], { isTTY: true, env: { NO_COLOR: '1' } });
    await run.stop();
    const port = new URL(url).port;
    const banner = run.err
      .map((line) => line.replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8080').replace(/^( {2}Docs {8})\/.*(\/docs\/README\.md)$/, '$1/path/to/token-sim$2'))
      .join('\n');
    expect(textBlocks('The banner')[0]).toBe(banner);
  });
});

describe('the options table of docs/cli.md (decision 0048)', () => {
  it('is the one written from the option declarations (node scripts/cli-doc.mjs after a build rewrites it)', () => {
    const block = /<!-- options table: generated from src\/cli\/option-table\.ts by scripts\/cli-doc\.mjs -->\n([\s\S]*?)\n<!-- end of the options table -->/.exec(page);
    expect(block?.[1]?.split('\n')).toEqual(optionRows());
  });

  it('has a row for every flag --help lists, and the variables and keys the CLI reads', () => {
    const rows = optionRows().join('\n');
    for (const row of ['| `-p, --port <n>` | `TOKEN_SIM_PORT` | `port` |', '| `--user <name:password>`, repeatable | `TOKEN_SIM_USER` or `TOKEN_SIM_USERS` | `user` or `users` |', '| `--log <pretty\\|json\\|silent>` | `TOKEN_SIM_LOG` | `log` |']) {
      expect(rows).toContain(row);
    }
    expect(optionRows()).toHaveLength(2 + 38 + 1);
  });
});

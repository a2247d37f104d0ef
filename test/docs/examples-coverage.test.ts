/**
 * Docs that cannot lie (contract 4.1): every example in README.md and docs/*.md that shows a command or code
 * with its output is run by a test that compares it, or is marked in the page as not run, with the reason.
 * This test reads every page (test/support/doc-examples.ts finds the examples), so a new example without a
 * mark fails here, whoever adds it and wherever. The tests that run examples pick them by the same marks.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { docPages, examplesOf, root, whereIs, type Example } from '../support/doc-examples.js';

const all = docPages().flatMap((page) => examplesOf(page));
const runBy = (e: Example): string | undefined => (e.mark && 'runBy' in e.mark ? e.mark.runBy : undefined);
const runners = [...new Set(all.map(runBy).filter((r): r is string => r !== undefined))];

describe('the examples of README.md and docs/*.md', () => {
  it('are found on the pages that have them', () => {
    const pages = new Set(all.map((e) => e.page));
    for (const page of ['README.md', 'docs/walkthrough.md', 'docs/library.md', 'docs/tokens.md', 'docs/test-runners.md']) expect(pages).toContain(page);
  });

  it('each shows what it is run by, or why it is not run', () => {
    const unmarked = all.filter((e) => e.mark === undefined).map((e) => `${whereIs(e)} (${e.why})`);
    expect(unmarked).toEqual([]);
  });

  it('each not run says why, in more than a word', () => {
    const bare = all.filter((e) => e.mark && 'notRun' in e.mark && e.mark.notRun.split(/\s+/).length < 4).map(whereIs);
    expect(bare).toEqual([]);
  });

  it.each(runners)('are run by %s, which exists and reads the pages it runs', (runner) => {
    const path = join(root, runner);
    expect(existsSync(path)).toBe(true);
    const source = readFileSync(path, 'utf8');
    const pages = [...new Set(all.filter((e) => runBy(e) === runner).map((e) => e.page))];
    // A runner names the page it reads, or picks its examples by their marks (examplesRunBy).
    const unread = pages.filter((page) => !source.includes(basename(page)) && !source.includes('examplesRunBy('));
    expect(unread).toEqual([]);
  });

  it('each show more than `…`: an output that is all elided would match anything', () => {
    const empty = all.filter((e) => e.output.body.replace(/[\s…]/g, '') === '').map(whereIs);
    expect(empty).toEqual([]);
  });
});

describe('finding the examples of a page', () => {
  const page = (markdown: string): string[] => examplesOf('x.md', markdown).map((e) => `${e.output.line} ${e.why} ${JSON.stringify(e.mark ?? null)}`);

  it.each([
    ['a text block after a command', '```sh\ncurl x\n```\n\n```text\nHTTP 200\n```\n', ['5 a text block null']],
    ['a json block after a command', '```sh\ncurl x\n```\n\n```json\n{}\n```\n', ['5 a json block after a sh block null']],
    ['a json block introduced as an answer', 'The call answers:\n\n```json\n{}\n```\n', ['3 a json block introduced as output null']],
    ['a shell comment with what came back', '```sh\ncurl x   # {"now":"2030"}\n```\n', ['1 a comment with what came back null']],
    ['a status in a comment', '```sh\ncurl x   # 204\n```\n', ['1 a comment with what came back null']],
    ['a prompt and its output', '```sh\n$ npx token-sim validate a.yaml\na.yaml: ok\n```\n', ['1 a prompt and its output null']],
    ['assertions in code', '```ts\nexpect(x).toBe(1);\n```\n', ['1 assertions null']],
    ['a comment with a value in code', '```js\nawait sim.flush(); // { flushed: true }\n```\n', ['1 a comment with what came back null']],
  ])('counts %s', (_what, markdown, found) => {
    expect(page(markdown)).toEqual(found);
  });

  it.each([
    ['commands alone', '```sh\nnpm ci\nnpx token-sim     # run it\n```\n'],
    ['a file to save', 'Save this as `a.json`:\n\n```json\n{}\n```\n'],
    ['a file after code', '```js\nmodule.exports = {};\n```\n\n`tsconfig.json`:\n\n```json\n{}\n```\n'],
    ['a json block after a heading', '```sh\ncurl x\n```\n\n## Next\n\n```json\n{}\n```\n'],
    ['code without results', '```ts\nconst sim = await startSimulator();\n```\n'],
  ])('does not count %s', (_what, markdown) => {
    expect(page(markdown)).toEqual([]);
  });

  it('reads a mark before the command, before the output, and for the whole page', () => {
    expect(page('<!-- run by test/a.test.ts -->\n```sh\ncurl x\n```\n```text\nok\n```\n')).toEqual(['5 a text block {"runBy":"test/a.test.ts"}']);
    expect(page('```sh\ncurl x\n```\n<!-- not run by the tests: needs a Docker engine -->\n```text\nok\n```\n')).toEqual([
      '5 a text block {"notRun":"needs a Docker engine"}',
    ]);
    expect(page('<!-- examples on this page are run by test/b.test.ts -->\n\n```text\nok\n```\n')).toEqual(['3 a text block {"runBy":"test/b.test.ts","page":true}']);
    expect(page('<!-- run by test/a.test.ts after:\nnpx token-sim --seed x\n-->\n```sh\ncurl x\n```\n```text\nok\n```\n')).toEqual([
      '7 a text block {"runBy":"test/a.test.ts","after":"npx token-sim --seed x"}',
    ]);
  });

  it('reads a visible note as a mark too', () => {
    expect(page('*Not run by the tests: needs a Docker engine.*\n\n```text\nok\n```\n')).toEqual(['3 a text block {"notRun":"needs a Docker engine."}']);
  });
});

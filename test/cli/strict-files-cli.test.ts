/** Strict files and impossible dates on the command line: `validate`, `--scenario`, `--fixtures`, `--now`. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { exitCodeOf, runCli, tempFile } from '../support/cli-in-process.js';

const ISSUE_EXAMPLE = ['name: typo', 'rulez: []', 'token: []', 'rules:', '  - when: { opertion: sale, curency: EUR }', '    then: { delayMs: 5 }', ''].join('\n');

describe('strict files on the command line', () => {
  it('validate prints each unknown key with its JSONPath and hint, and exits 1', async () => {
    const file = tempFile('typo.yaml', ISSUE_EXAMPLE);
    const r = runCli(['validate', file]);
    expect(await exitCodeOf(r)).toBe(1);
    expect(r.stdout().trim().split('\n')).toStrictEqual([
      `${file}: $.rules[0].when.opertion: opertion is not a field of this object; did you mean operation?`,
      `${file}: $.rules[0].when.curency: curency is not a field of this object; did you mean currency?`,
      `${file}: $.rulez: rulez is not a field of this object; did you mean rules?`,
      `${file}: $.token: token is not a field of this object; did you mean tokens?`,
    ]);
  });

  it('validate reports an unknown key of a fixtures file', async () => {
    const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as { credentials: Record<string, unknown>[] };
    fixtures.credentials[0]!.pasword = 'x';
    const file = tempFile('fixtures.json', JSON.stringify(fixtures));
    const r = runCli(['validate', file]);
    expect(await exitCodeOf(r)).toBe(1);
    expect(r.stdout().trim()).toBe(`${file}: $.credentials[0].pasword: pasword is not a field of this object; did you mean password?`);
  });

  it('--scenario refuses a file with an unknown key: one line on stderr naming it, exit code 2', async () => {
    const r = runCli(['--port', '0', '--scenario', tempFile('typo.yaml', ISSUE_EXAMPLE)]);
    expect(await exitCodeOf(r)).toBe(2);
    const lines = r.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('$.rules[0].when.opertion: opertion is not a field of this object; did you mean operation?');
    expect(lines[0]).toContain('$.token: token is not a field of this object; did you mean tokens?');
  });

  it('--fixtures refuses a file with an unknown key: one line on stderr naming it, exit code 2', async () => {
    const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    fixtures.bin = [];
    const r = runCli(['--port', '0', '--fixtures', tempFile('fixtures.json', JSON.stringify(fixtures))]);
    expect(await exitCodeOf(r)).toBe(2);
    expect(r.stderr().trim().split('\n')).toHaveLength(1);
    expect(r.stderr()).toContain('$.bin: bin is not a field of this object; did you mean bins?');
  });
});

describe('--now with a date that does not exist', () => {
  it.each([
    ['2030-02-31T00:00:00Z', 'February 2030 has 28 days'],
    ['2031-02-29', 'February 2031 has 28 days'],
    ['2030-01-01T24:00:00Z', 'hours go up to 23, not 24'],
  ])('refuses %p with one clear line on stderr and exit code 2', async (now, reason) => {
    const r = runCli(['--port', '0', '--now', now]);
    expect(await exitCodeOf(r)).toBe(2);
    expect(r.stdout()).toBe('');
    expect(r.stderr()).toBe(`token-sim: --now must be an ISO 8601 date-time such as 2030-01-01T00:00:00Z, got '${now}': ${reason}\n`);
  });
});

describe('validate on a file with very many problems (issue 13, defect 5)', () => {
  it('prints the first 100 problems and one line saying more were omitted', async () => {
    const rules = Array.from({ length: 5_000 }, () => ({ x: 0 }));
    const file = tempFile('many.json', JSON.stringify({ name: 'many', rules }));
    const r = runCli(['validate', file]);
    expect(await exitCodeOf(r)).toBe(1);
    const lines = r.stdout().trim().split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe(`${file}: $.rules[0].then: then is required`);
    expect(lines[100]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\$: only the first 100 problems are listed`));
  });
});

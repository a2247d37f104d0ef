/** The size rule of eslint.size.js (contract 4.2): no function over 80 lines, no file over 300, in src/. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { sizeRules } from '../../eslint.size.js';

const root = new URL('../../', import.meta.url).pathname;

const lint = (): ESLint =>
  new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...sizeRules()] });

/** The problems of `text` linted as the file at `path` (relative to the repository), with the size rules only. */
async function problems(text: string, path: string): Promise<string[]> {
  const [result] = await lint().lintText(text, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

/** A function of `lines` lines in all (its first and last line included). */
const fn = (name: string, lines: number): string => `export function ${name}(): number {\n${'  void 0;\n'.repeat(lines - 3)}  return 1;\n}\n`;

describe('the size rule', () => {
  it('takes a function of 80 lines and refuses one of 81, comments and blank lines counted', async () => {
    expect(await problems(fn('ok', 80), 'src/http/x.ts')).toEqual([]);
    expect(await problems(fn('long', 81), 'src/http/x.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: Function 'long' has too many lines \(81\)\. Maximum allowed is 80/)]);
    const padded = `export function padded(): number {\n${'  // a note\n\n'.repeat(40)}  return 1;\n}\n`;
    expect(await problems(padded, 'src/domain/x.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: Function 'padded' has too many lines \(83\)/)]);
  });

  it('counts a closure factory as the whole of its body', async () => {
    const factory = `export function createThing() {\n  const a = () => 1;\n${'  void a;\n'.repeat(80)}  return { a };\n}\n`;
    expect(await problems(factory, 'src/infra/x.ts')).toEqual([expect.stringMatching(/^max-lines-per-function: Function 'createThing' has too many lines \(84\)/)]);
  });

  it('takes a file of 300 lines and refuses one of 301', async () => {
    const body = (lines: number): string => `${'export const a = 1;\n'}${'// a line\n'.repeat(lines - 1)}`;
    expect(await problems(body(300), 'src/wire/x.ts')).toEqual([]);
    expect(await problems(body(301), 'src/wire/x.ts')).toEqual([expect.stringMatching(/^max-lines: File has too many lines \(301\)\. Maximum allowed is 300/)]);
  });

  it('holds in every file of src/', async () => {
    const files = readdirSync(`${root}src`, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => `src/${f}`);
    expect(files.length).toBeGreaterThan(50);
    const results = await lint().lintFiles(files);
    const found = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.message}`));
    expect(found).toEqual([]);
  });
});

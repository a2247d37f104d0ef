/**
 * The examples of README.md and docs/*.md that show a command or code together with its output, and how each
 * page marks them: run by a test (`<!-- run by test/… -->`), or not run, with the reason
 * (`<!-- not run by the tests: … -->`). test/docs/examples-coverage.test.ts holds every page to it, and the
 * tests that run a page's examples pick them here, so what the page says is run is what they compare.
 *
 * An example with output is:
 * - a `text` block (the docs show output, and only output, as `text`);
 * - a `json` block, or one without a language, right after a command or code block (nothing but prose between,
 *   no heading, no lead-in that names a file: `` `tsconfig.json`: ``), or introduced by "answers:", "prints:",
 *   "returns:" or "gives:";
 * - a command or code block that shows its own output: a `$ ` prompt followed by its output, a shell comment
 *   that starts with what came back (`# {…}`, `# 204`, `# HTTP 200`, `# → …`), a code comment that does
 *   (`// {…}`, `// → …`), or an assertion (`expect(`).
 *
 * A mark applies to the example whose blocks it stands before (in the prose before the command block or
 * between it and its output). `<!-- examples on this page are run by test/… -->` marks every example of the
 * page that has no mark of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Block {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The Markdown between the previous block (or the start of the page) and this one. */
  before: string;
}

/**
 * `runBy`: the test that runs the example; `after`: the shell lines it runs first (the set-up the page's
 * prose describes), from `<!-- run by <test> after: <lines> -->`; `page`: the mark is the page's.
 */
export type Mark = { runBy: string; after?: string; page?: true } | { notRun: string };

export interface Example {
  page: string;
  /** The command or code block; the same as `output` when the block shows its own output. */
  command: Block | undefined;
  output: Block;
  /** Why the block counts as an example with output. */
  why: string;
  mark: Mark | undefined;
}

const FENCE = /^```(\S*)\n([\s\S]*?)^```$/gm;
const COMMAND_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'js', 'ts', 'mjs', 'cjs', 'javascript', 'typescript']);
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
const INTRODUCED = /(?:answers|prints|returns|gives):\s*$/;
/** A lead-in that names the file a block is (`` `tsconfig.json`: ``, `` save this as `demo.yaml`: ``): a file, not output. */
const FILE_LEAD_IN = /`[\w./-]+\.(?:json|ya?ml|m?[jt]s|cjs)`[^`\n]*:\s*$/;

/** The pages whose examples are held to this: README.md and every page directly in docs/. */
export function docPages(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function readPage(page: string): string {
  return readFileSync(join(root, page), 'utf8');
}

export function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  let last = 0;
  for (const m of markdown.matchAll(FENCE)) {
    const line = markdown.slice(0, m.index).split('\n').length;
    blocks.push({ lang: m[1] ?? '', body: m[2] ?? '', line, before: markdown.slice(last, m.index) });
    last = m.index + m[0].length;
  }
  return blocks;
}

/** Why a command or code block shows its own output, or undefined. */
export function inlineOutput(block: Block): string | undefined {
  const lines = block.body.split('\n');
  if (SHELL_LANGS.has(block.lang)) {
    const prompt = lines.findIndex((l) => l.startsWith('$ '));
    if (prompt !== -1 && lines.slice(prompt + 1).some((l) => l.trim() !== '' && !l.startsWith('$ '))) return 'a prompt and its output';
    if (lines.some((l) => /(?:^|\s)#\s*(?:[{[]|HTTP\b|\d{3}\b|→|=>)/.test(l))) return 'a comment with what came back';
  } else if (COMMAND_LANGS.has(block.lang)) {
    if (/\bexpect\(|\.expect\(/.test(block.body)) return 'assertions';
    if (lines.some((l) => /\/\/\s*(?:[{[]|→|=>)/.test(l))) return 'a comment with what came back';
  }
  return undefined;
}

const NOT_RUN = /not run by the tests:\s*(.+?)\s*(?:-->|\*|$)/im;
const RUN_BY = /<!--\s*run by (\S+?)(?:\s+after:\s*([\s\S]*?))?\s*-->/i;
const PAGE_RUN_BY = /<!--\s*examples on this page are run by (\S+)\s*-->/i;

/** The mark in a stretch of prose, if any. */
function markIn(prose: string): Mark | undefined {
  const notRun = NOT_RUN.exec(prose);
  if (notRun) return { notRun: notRun[1]! };
  const runBy = RUN_BY.exec(prose);
  if (runBy) return runBy[2] === undefined ? { runBy: runBy[1]! } : { runBy: runBy[1]!, after: runBy[2] };
  return undefined;
}

/** The examples with output of one page, in order, with their marks. */
export function examplesOf(page: string, markdown = readPage(page)): Example[] {
  const blocks = blocksOf(markdown);
  const pageRunBy = PAGE_RUN_BY.exec(markdown.replace(FENCE, ''))?.[1];
  const pageMark: Mark | undefined = pageRunBy === undefined ? undefined : { runBy: pageRunBy, page: true };
  const examples: Example[] = [];
  const used = new Set<Block>();
  blocks.forEach((block, i) => {
    const previous = blocks[i - 1];
    const afterCommand =
      previous !== undefined && COMMAND_LANGS.has(previous.lang) && !/^#{1,6} /m.test(block.before) && !FILE_LEAD_IN.test(block.before.trim());
    let why: string | undefined;
    if (block.lang === 'text') why = 'a text block';
    else if ((block.lang === 'json' || block.lang === '') && afterCommand) why = `a ${block.lang || 'plain'} block after a ${previous.lang} block`;
    else if ((block.lang === 'json' || block.lang === '') && INTRODUCED.test(block.before.trim())) why = `a ${block.lang || 'plain'} block introduced as output`;
    if (why !== undefined) {
      const command = afterCommand ? previous : undefined;
      if (command) used.add(command);
      const mark = markIn(block.before) ?? (command ? markIn(command.before) : undefined);
      examples.push({ page, command, output: block, why, mark: mark ?? pageMark });
    }
  });
  for (const block of blocks) {
    if (used.has(block)) continue;
    const why = inlineOutput(block);
    if (why === undefined) continue;
    const mark = markIn(block.before);
    examples.push({ page, command: block, output: block, why, mark: mark ?? pageMark });
  }
  return examples.sort((a, b) => a.output.line - b.output.line);
}

/** The examples of a page that a test says it runs (the test's path relative to the repository). */
export function examplesRunBy(test: string, page: string): Example[] {
  return examplesOf(page).filter((e) => e.mark !== undefined && 'runBy' in e.mark && e.mark.runBy === test);
}

/** `page:line` of an example, for test names and messages. */
export function whereIs(example: Example): string {
  return `${example.page}:${example.output.line}`;
}

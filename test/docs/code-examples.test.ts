/**
 * The code examples of the docs that state their own result (assertions), run in-process as a reader's test
 * file would run them: each example marked `<!-- run by test/docs/code-examples.test.ts -->` is compiled from
 * TypeScript as it stands on the page, its imports bound to the library in src/ ('token-sim'), supertest, and
 * a small stand-in for '@jest/globals' (the real `expect`; `beforeAll`, `it`… collected and then run in
 * order, as Jest would run one file). An assertion that fails on the page fails here.
 */
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { docPages, examplesRunBy, whereIs, type Example } from '../support/doc-examples.js';

const TEST = 'test/docs/code-examples.test.ts';

type Hook = () => unknown;

/** What a test file registers through '@jest/globals', and a run of it in Jest's order. */
function fileHarness(): { globals: Record<string, unknown>; run: () => Promise<number> } {
  const hooks = { beforeAll: [] as Hook[], afterAll: [] as Hook[], beforeEach: [] as Hook[], afterEach: [] as Hook[] };
  const tests: { name: string; fn: Hook }[] = [];
  const test = (name: string, fn: Hook): void => void tests.push({ name, fn });
  const globals = {
    expect,
    it: test,
    test,
    describe: (_name: string, fn: () => void) => fn(),
    beforeAll: (fn: Hook) => hooks.beforeAll.push(fn),
    afterAll: (fn: Hook) => hooks.afterAll.push(fn),
    beforeEach: (fn: Hook) => hooks.beforeEach.push(fn),
    afterEach: (fn: Hook) => hooks.afterEach.push(fn),
  };
  async function run(): Promise<number> {
    for (const hook of hooks.beforeAll) await hook();
    try {
      for (const { name, fn } of tests) {
        try {
          for (const hook of hooks.beforeEach) await hook();
          await fn();
          for (const hook of hooks.afterEach) await hook();
        } catch (error) {
          throw new Error(`the example's test "${name}" failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
    } finally {
      for (const hook of hooks.afterAll) await hook();
    }
    return tests.length;
  }
  return { globals, run };
}

/** `import …` declarations as bindings from `__modules` (the compiled example is an async function body). */
function bindImports(js: string): { body: string; modules: string[] } {
  const modules: string[] = [];
  const body = js.replace(/^import\s+(?:(\w+)|\{([^}]*)\}|(\w+)\s*,\s*\{([^}]*)\})\s+from\s+'([^']+)';?$/gm, (_m, only, named, first, rest, from: string) => {
    modules.push(from);
    const source = `__modules[${JSON.stringify(from)}]`;
    const parts: string[] = [];
    const def = (only as string | undefined) ?? (first as string | undefined);
    if (def) parts.push(`const ${def} = ${source}.default ?? ${source};`);
    const list = ((named as string | undefined) ?? (rest as string | undefined) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => s.replace(/\s+as\s+/, ': '));
    if (list.length > 0) parts.push(`const { ${list.join(', ')} } = ${source};`);
    return parts.join(' ');
  });
  return { body, modules };
}

async function runExample(example: Example): Promise<number> {
  const { outputText } = ts.transpileModule(example.command!.body, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
  });
  const { body, modules } = bindImports(outputText);
  const harness = fileHarness();
  const available: Record<string, () => Promise<unknown>> = {
    'token-sim': () => import('../../src/index.js'),
    supertest: () => import('supertest'),
    '@jest/globals': () => Promise.resolve(harness.globals),
  };
  const bound: Record<string, unknown> = {};
  for (const name of modules) {
    const load = available[name];
    if (!load) throw new Error(`${whereIs(example)} imports ${name}, which this test does not provide`);
    bound[name] = await load();
  }
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (...args: string[]) => (modules: unknown) => Promise<void>;
  await new AsyncFunction('__modules', body)(bound);
  return harness.run();
}

const examples = docPages().flatMap((page) => examplesRunBy(TEST, page));

describe('the code examples of the docs, run', () => {
  it('finds the examples the pages say it runs', () => {
    expect(examples.map(whereIs)).toEqual(expect.arrayContaining([expect.stringMatching(/^docs\/library\.md:/)]));
    for (const example of examples) expect([whereIs(example), example.command?.lang]).toEqual([whereIs(example), 'ts']);
  });

  it.each(examples.map((e) => [whereIs(e), e] as const))('%s runs, and its assertions hold', async (_where, example) => {
    await expect(runExample(example)).resolves.toBeGreaterThanOrEqual(0);
  });
});

describe('binding the imports of an example', () => {
  it.each([
    ["import request from 'supertest';", "const request = __modules[\"supertest\"].default ?? __modules[\"supertest\"];"],
    ["import { a, b as c } from 'token-sim';", 'const { a, b: c } = __modules["token-sim"];'],
  ])('turns %s into bindings', (line, bound) => {
    expect(bindImports(line).body).toBe(bound);
  });
});

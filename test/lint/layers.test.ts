/** The layer zones of eslint.layers.js, applied to fixture files placed (virtually) in src/ folders. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { layerZones } from '../../eslint.layers.js';

const root = new URL('../../', import.meta.url).pathname;
const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** Lints text as if it were the file at `path` (relative to the repository), with the zones only. */
async function problems(text: string, path: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerZones()],
  });
  const [result] = await eslint.lintText(text, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('the layer zones', () => {
  it('refuse a domain file that imports from src/http', async () => {
    const found = await problems(fixture('points-up.ts'), 'src/domain/points-up.ts');
    expect(found).toEqual([expect.stringMatching(/^no-restricted-imports: '\.\.\/http\/api\.js' import is restricted.*src\/domain is below/)]);
  });

  it('accept an http file that imports from src/domain and src/wire', async () => {
    expect(await problems(fixture('points-down.ts'), 'src/http/points-down.ts')).toEqual([]);
  });

  it.each([
    ['src/wire/x.ts', "import { x } from '../config/options.js';"],
    ['src/config/x.ts', "import { x } from '../scenarios/engine.js';"],
    ['src/scenarios/x.ts', "import { x } from '../control/journal.js';"],
    ['src/control/x.ts', "import { x } from '../http/api.js';"],
    ['src/control/x.ts', "import { x } from '../store/memory-store.js';"],
    ['src/store/redis/x.ts', "import { x } from '../../http/errors.js';"],
    ['src/http/operations/x.ts', "import { x } from '../../simulator/compose.js';"],
    ['src/simulator/x.ts', "import { x } from '../cli/main.js';"],
    ['src/verify/x.ts', "import { x } from '../simulator/server.js';"],
    ['src/verify/x.ts', "import { x } from '../http/api.js';"],
    ['src/infra/x.ts', "import { x } from '../wire/json.js';"],
    ['src/cli/x.ts', "import { x } from '../index.js';"],
    ['src/simulator/x.ts', "import type { x } from '../runners/test-runner.js';"],
    ['src/http/x.ts', "import { x } from '../runners/jest.js';"],
  ])('refuse %s importing upwards: %s', async (path, line) => {
    const found = await problems(`${line}\nexport const y = x;\n`, path);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: /);
  });

  it('refuse express in src/control and node:fs in src/domain', async () => {
    expect(await problems("import express from 'express';\nexport const e = express;\n", 'src/control/x.ts')).toHaveLength(1);
    expect(await problems("import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", 'src/domain/x.ts')).toHaveLength(1);
  });

  it('keep the dashboard (src/ui) and the server apart: Preact and htm only there, and no server file imports it', async () => {
    expect(await problems("import { render } from 'preact';\nimport { html } from 'htm/preact';\nexport const r = [render, html];\n", 'src/ui/x.ts')).toEqual([]);
    for (const line of ["import { x } from '../http/api.js';", "import { x } from 'node:fs';", "import x from 'express';"]) {
      const found = await problems(`${line}\nexport const y = x;\n`, 'src/ui/x.ts');
      expect(found).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*src\/ui runs in the browser/)]);
    }
    // The shapes of /_sim as the package publishes them: types only, never code.
    expect(await problems("import type { JournalEntry } from '../../dist/index.js';\nexport type J = JournalEntry;\n", 'src/ui/x.ts')).toEqual([]);
    expect(await problems("import { startSimulator } from '../../dist/index.js';\nexport const s = startSimulator;\n", 'src/ui/x.ts')).toContainEqual(
      expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*src\/ui takes only types from the published declarations/),
    );
    const found = await problems("import { x } from '../ui/main.js';\nexport const y = x;\n", 'src/http/x.ts');
    expect(found).toEqual([expect.stringMatching(/^no-restricted-imports: .*src\/ui is the dashboard/)]);
  });
});

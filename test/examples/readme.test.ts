/**
 * The README is the way in (contract 3.1): at most 400 lines, the two commands first, how to get it and how to
 * test it (contract 4.1: the ways that work today, no published package claimed, the quick loop and every
 * suite), a tour, then links into docs/ that all lead somewhere; and a LICENSE that matches package.json.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docPages } from '../support/doc-examples.js';
import { fencedBlocks, headingAnchors, linkTargets, withoutFencedBlocks } from '../support/markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The text of a `## ` section of the README, its blocks included. */
const section = (title: string): string => {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`README.md has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 4);
  return readme.slice(start, end === -1 ? undefined : end);
};

describe('README.md', () => {
  it('has at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('shows the two commands, run the simulator and run the tests, before anything else', () => {
    const first = fencedBlocks(readme)[0];
    expect(first?.lang).toBe('sh');
    expect(first?.body).toMatch(/^npm ci && npx token-sim\b/m);
    expect(first?.body).toMatch(/^npm ci && npm test\b/m);
    expect(first?.before).not.toMatch(/^## /m); // no section comes before them
  });

  it('says how to get it and how to test it, then has a five-minute tour, links into docs/, the licence', () => {
    const sections = [...withoutFencedBlocks(readme).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Get it', 'Tests', 'A five-minute tour', 'Documentation', 'License']);
  });

  it('gets token-sim the ways that work today: a clone, a packed tarball, a git URL that the prepare script builds', () => {
    const getIt = section('Get it');
    expect(getIt).toMatch(/^git clone .* && npm ci\b/m);
    expect(getIt).toMatch(/^npm pack\b/m);
    expect(getIt).toMatch(/^npm install --save-dev \S*token-sim-0\.1\.0\.tgz/m);
    expect(getIt).toMatch(/^npm install --save-dev "?git\+https:\/\//m);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string> };
    expect(getIt).toContain(`token-sim-${pkg.version}.tgz`);
    // A git dependency is built by its prepare script: it must build dist/.
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json\b/);
  });

  it('shows both test commands, and says which suites need what', () => {
    const tests = section('Tests');
    expect(tests).toMatch(/^npm test\b/m);
    expect(tests).toMatch(/^npm run test:all\b/m);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test:all']).toBeDefined();
    for (const need of ['curl', 'jq', '/usr/bin/chromium', 'redis-server', '*.browser.test.ts', '*.redis.test.ts', '"http (redis)"']) expect(tests).toContain(need);
  });
});

describe('the README and docs/*.md', () => {
  /** Commands in shell blocks that would fetch token-sim from the npm registry, where it is not published. */
  const REGISTRY = /\b(?:npm (?:install|i|add)(?: -\S+)* token-sim(?:@\S*)?(?=\s|$)|npx (?:--yes |-y )?token-sim@)/m;

  it.each(docPages())('%s shows no command that fetches token-sim from the npm registry', (page) => {
    const shell = fencedBlocks(readFileSync(join(root, page), 'utf8')).filter((b) => ['sh', 'bash', 'shell', 'console'].includes(b.lang));
    expect(shell.map((b) => b.body).filter((body) => REGISTRY.test(body))).toEqual([]);
  });

  it('knows such a command when it sees one', () => {
    for (const command of ['npm install token-sim', 'npm i -D token-sim@0.1.0', 'npx --yes token-sim@0.1.0 --port 0']) expect(command).toMatch(REGISTRY);
    for (const command of ['npm install --save-dev ../token-sim/token-sim-0.1.0.tgz', 'npx token-sim --seed demo']) expect(command).not.toMatch(REGISTRY);
  });

  it.each(linkTargets(readme).filter((t) => !/^[a-z]+:/.test(t)))('links to %s, which exists', (target) => {
    const [path = '', anchor] = target.split('#');
    const file = path === '' ? 'README.md' : path;
    expect(existsSync(join(root, file))).toBe(true);
    if (anchor !== undefined && file.endsWith('.md')) {
      expect([...headingAnchors(readFileSync(join(root, file), 'utf8'))]).toContain(anchor);
    }
  });

  it('links to at least one page of docs/ and to the licence', () => {
    const targets = linkTargets(readme);
    expect(targets).toEqual(expect.arrayContaining(['docs/walkthrough.md', 'docs/README.md', 'LICENSE']));
  });
});

describe('the licence', () => {
  it('is the MIT licence that package.json names, by the token-sim authors', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license?: string };
    expect(pkg.license).toBe('MIT');
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 the token-sim authors');
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});

describe('the markdown reading the README test relies on', () => {
  it.each([
    ['## A five-minute tour', 'a-five-minute-tour'],
    ['### 5. Script an outage for one tenant', '5-script-an-outage-for-one-tenant'],
    ['## Shipped scenarios (`scenarios/`)', 'shipped-scenarios-scenarios'],
    ['## Control API (`/_sim`)', 'control-api-_sim'],
  ])('gives %s the anchor %s', (heading, anchor) => {
    expect([...headingAnchors(heading)]).toEqual([anchor]);
  });

  it('numbers repeated headings and ignores # lines in code', () => {
    expect([...headingAnchors('## Notes\n```sh\n# not a heading\n```\n## Notes\n')]).toEqual(['notes', 'notes-1']);
  });

  it('finds links outside code only', () => {
    expect(linkTargets('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n[`d`](w.md#e)')).toEqual(['x.md', 'w.md#e']);
  });
});

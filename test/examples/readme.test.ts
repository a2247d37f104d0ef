/**
 * The README is the way in (contract 3.1): at most 400 lines, the two commands first, a tour, then links
 * into docs/ that all lead somewhere; and a LICENSE that matches package.json.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, headingAnchors, linkTargets, withoutFencedBlocks } from '../support/markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('README.md', () => {
  it('has at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('shows the two commands, run the simulator and run the tests, before anything else', () => {
    const first = fencedBlocks(readme)[0];
    expect(first?.lang).toBe('sh');
    expect(first?.body).toMatch(/^npm install && npx token-sim\b/m);
    expect(first?.body).toMatch(/^npm install && npm test\b/m);
    expect(first?.before).not.toMatch(/^## /m); // no section comes before them
  });

  it('has a five-minute tour, then links into docs/, then the licence', () => {
    const sections = [...withoutFencedBlocks(readme).matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['A five-minute tour', 'Documentation', 'License']);
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

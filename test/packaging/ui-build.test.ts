/** The dashboard's build (scripts/build-ui.mjs, decision 0035): small, self-contained, no other host. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT = 200 * 1024;
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'token-sim-ui-'));
  execFileSync(process.execPath, ['scripts/build-ui.mjs', out], { cwd: ROOT, stdio: 'pipe' });
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const files = (): string[] => readdirSync(out).sort();
const text = (name: string): string => readFileSync(join(out, name), 'utf8');

describe('the dashboard build', () => {
  it('writes the page, one script and one stylesheet, and nothing else', () => {
    expect(files()).toEqual(['app.css', 'app.js', 'index.html']);
  });

  it('stays under 200 KB uncompressed, page and assets together', () => {
    const total = files().reduce((sum, f) => sum + statSync(join(out, f)).size, 0);
    expect(total).toBeLessThan(LIMIT);
  });

  it('names no other host: every absolute http(s) URL in any file is an XML namespace name, never fetched', () => {
    // Preact creates SVG and MathML elements in their namespaces: identifiers, not requests.
    const NAMESPACES = new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1998/Math/MathML', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1999/xlink']);
    for (const f of files()) {
      const urls = [...text(f).matchAll(/https?:\/\/[^\s"'`)<>]*/gi)].map((m) => m[0]);
      expect({ file: f, urls: urls.filter((u) => !NAMESPACES.has(u)) }).toEqual({ file: f, urls: [] });
      // nor a protocol-relative one, nor an @import / font from elsewhere
      expect(text(f)).not.toMatch(/(?:src|href)=["']\/\/|url\(\s*["']?\/\/|@import/);
    }
  });

  it('keeps scripts out of the page: one external module, no inline script, style or handler', () => {
    const page = text('index.html');
    expect([...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="module" src="/_sim/ui/app.js">']);
    expect(page).not.toMatch(/<script\b[^>]*>[^<]+<\/script>|<style\b|\sstyle=|\son[a-z]+=/i);
  });

  it('bundles the text of every shipped scenario, so that one click loads it', () => {
    const script = text('app.js');
    const shipped = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml'));
    expect(shipped.length).toBeGreaterThan(0);
    for (const f of shipped) {
      expect(script).toContain(JSON.stringify(f));
      // esbuild may write the text as a template literal: look for its plain lines, not its JSON form.
      const lines = readFileSync(join(ROOT, 'scenarios', f), 'utf8').split('\n').filter((l) => l.length > 8 && !/[\\"'`$]|[^\x20-\x7e]/.test(l));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(script).toContain(line);
    }
  });

  it("offers the journal's operations as the journal filter's choices, taken from the library at build time", () => {
    const operations = ['createToken', 'getToken', 'updateToken', 'deleteToken', 'queryTokens', 'sale', 'refund', 'partialRefund', 'reversal', 'paymentEvents', 'paymentQuery', 'unknown'];
    expect(text('app.js')).toContain(JSON.stringify(operations));
    expect(text('app.js')).not.toContain('__JOURNAL_OPERATIONS__');
  });

  it('uses neither eval nor new Function (the CSP forbids both)', () => {
    expect(text('app.js')).not.toMatch(/\beval\(|new Function\(/);
  });

  it('supports light and dark by prefers-color-scheme, and a narrow layout', () => {
    const css = text('app.css');
    expect(css).toContain('@media (prefers-color-scheme: dark)');
    expect(css).toMatch(/@media \(max-width: \d+px\)/);
    expect(css).toContain(':focus-visible');
  });
});

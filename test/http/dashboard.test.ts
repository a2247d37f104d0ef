/** The dashboard's page and assets (`GET /_sim/ui`, decision 0035) and the browser's `GET /`. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { handlerOf, testSimulator } from '../support/sim.js';

const ROOT = new URL('../../', import.meta.url);
const BUILT = new URL('dist/ui/', ROOT);

const open = testSimulator();
const guarded = testSimulator({ adminToken: 'ui-s3cret' });
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

beforeAll(() => {
  // The served files are the built ones: build them (each file is renamed into place, so a concurrent build is harmless).
  execFileSync(process.execPath, ['scripts/build-ui.mjs'], { cwd: ROOT, stdio: 'pipe' });
}, 60_000);

const FILES = [
  ['/_sim/ui', 'index.html', 'text/html; charset=utf-8'],
  ['/_sim/ui/', 'index.html', 'text/html; charset=utf-8'],
  ['/_sim/ui/index.html', 'index.html', 'text/html; charset=utf-8'],
  ['/_sim/ui/app.js', 'app.js', 'text/javascript; charset=utf-8'],
  ['/_sim/ui/app.css', 'app.css', 'text/css; charset=utf-8'],
] as const;

describe('GET /_sim/ui', () => {
  it.each(FILES)('serves %s (%s) as %s, with nosniff and a strict CSP, without credentials even with --admin-token', async (path, file, type) => {
    for (const sim of [open, guarded]) {
      const res = await request(handlerOf(sim)).get(path).buffer(true).parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect((res.body as Buffer).equals(readFileSync(new URL(file, BUILT)))).toBe(true);
      expect(res.headers['content-length']).toBe(String((res.body as Buffer).length));
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await request(handlerOf(guarded)).head('/_sim/ui/app.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text ?? '').toBe('');
  });

  it('loads its script and stylesheet from /_sim/ui and has no inline script', async () => {
    const res = await request(handlerOf(open)).get('/_sim/ui');
    expect(res.text).toContain('<script type="module" src="/_sim/ui/app.js"></script>');
    expect(res.text).toContain('<link rel="stylesheet" href="/_sim/ui/app.css">');
    for (const m of res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[1]).toMatch(/\bsrc="/);
      expect(m[2]).toBe('');
    }
    expect(res.text).not.toMatch(/\son[a-z]+="/);
    expect(res.text).not.toMatch(/<style\b|\sstyle="/);
  });

  it('answers an unknown dashboard file 404 endpointNotFound, without credentials', async () => {
    for (const path of ['/_sim/ui/nope.js', '/_sim/ui/../state', '/_sim/ui/app.js/x']) {
      const res = await request(handlerOf(guarded)).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual({ errorName: 'endpointNotFound', message: expect.any(String) });
    }
  });

  it('opens only the static files: other methods and the data behind them still need the admin token', async () => {
    expect((await request(handlerOf(guarded)).post('/_sim/ui')).status).toBe(401);
    expect((await request(handlerOf(guarded)).get('/_sim/tokens')).status).toBe(401);
    expect((await request(handlerOf(guarded)).get('/_sim/uix')).status).toBe(401);
  });
});

describe('GET /', () => {
  it.each([BROWSER_ACCEPT, 'text/html', 'TEXT/HTML; q=0.5'])('redirects a browser (Accept: %s) to the dashboard', async (accept) => {
    for (const sim of [open, guarded]) {
      const res = await request(handlerOf(sim)).get('/').set('Accept', accept);
      expect([302, 303]).toContain(res.status);
      expect(res.headers.location).toBe('/_sim/ui');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it.each([undefined, 'application/json', '*/*', 'application/vnd.service.tokens-v1.hal+json'])('keeps the 404 error body for an API client (Accept: %s)', async (accept) => {
    let t = request(handlerOf(open)).get('/');
    if (accept !== undefined) t = t.set('Accept', accept);
    const res = await t;
    expect(res.status).toBe(404);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toEqual({ errorName: 'endpointNotFound', message: 'There is no endpoint at GET /' });
  });

  it('does not redirect other methods, even from a browser', async () => {
    const res = await request(handlerOf(open)).post('/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errorName: 'endpointNotFound' });
  });
});

/**
 * The dashboard (`/_sim/ui`, contract 3.4, issue 15) in a real headless Chromium against a real simulator:
 * the page opens, shows a token created through the API without reload, shows it expire when the clock
 * moves 8 days, loads the shipped `outage` scenario with one click and shows the next API call fail in the
 * live journal, exports the state and imports it again; the same key steps at 390 px wide. It asks no
 * other host for anything, loads in under 300 ms, and with --admin-token asks for the token once.
 * Elements are found by role and accessible name, as a person (or a screen reader) finds them.
 */
import { expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { RunningSimulator } from '../../src/index.js';
import { browserDescribe, browserSession, control, createToken, poll, DESKTOP, openDashboard, originOf, PHONE, startBrowserSimulator, type Dashboard } from '../support/browser.js';
import { ui } from './dashboard-page.js';

const describe = browserDescribe(import.meta.url);
// A browser and a simulator on a shared, loaded 2-core machine: room for slow steps (each wait inside has its own limit).
jest.setTimeout(60_000);

const session = browserSession();

async function start(options: Parameters<typeof startBrowserSimulator>[0] = {}): Promise<RunningSimulator> {
  const sim = await startBrowserSimulator(options);
  session.sims.push(sim);
  return sim;
}

async function dashboard(sim: RunningSimulator, viewport: { width: number; height: number }): Promise<Dashboard> {
  const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, viewport);
  session.open.push(d);
  return d;
}

/** Every request the page made went to the simulator's own origin. */
function expectOwnOriginOnly(d: Dashboard, sim: RunningSimulator): void {
  const others = d.requests.map((r) => r.url()).filter((url) => !url.startsWith(`${originOf(sim.url)}/`));
  expect(others).toEqual([]);
}

const SIZES = [
  ['1280×800', DESKTOP],
  ['390 px wide', PHONE],
] as const;

describe.each(SIZES)('the dashboard at %s', (_name, viewport) => {
  it('opens: the heading, the tenant picker with both tenants, no script error, nothing from another host', async () => {
    const sim = await start();
    const d = await dashboard(sim, viewport);
    await expect(ui.heading(d.page).count()).resolves.toBe(1);
    await ui.waitForReady(d.page);
    await expect(ui.tenantOptions(d.page)).resolves.toEqual(expect.arrayContaining(['alice', 'bob']));
    expect(d.errors).toEqual([]);
    expectOwnOriginOnly(d, sim);
  });

  it('shows a token created through the API without reload, then shows it expire when the clock moves 8 days', async () => {
    const sim = await start();
    const d = await dashboard(sim, viewport);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    const created = await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'Irene Adler', cardNumber: '5555555555554444' });
    expect(created.status).toBe(201);
    const tokenId = String(created.body.tokenId);
    const navigations = await d.page.evaluate('performance.getEntriesByType("navigation").length');

    const row = ui.tokenRow(d.page, tokenId);
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    await expect(row.textContent()).resolves.toContain('Irene Adler');
    await expect(row.textContent()).resolves.toContain('5555********4444');

    await ui.advanceClock(d.page, 'P8D');
    await ui.clock(d.page).getByLabel('Virtual time').filter({ hasText: '2030-01-09 00:00:00 UTC' }).waitFor({ timeout: 10_000 });
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    // The API agrees: the token is gone.
    const tokens = (await (await fetch(`${sim.url}/_sim/tokens?tenant=alice`)).json()) as { tokens: unknown[] };
    expect(tokens.tokens).toEqual([]);
    // No reload happened on the way.
    await expect(d.page.evaluate('performance.getEntriesByType("navigation").length')).resolves.toBe(navigations);
    expect(d.errors).toEqual([]);
    expectOwnOriginOnly(d, sim);
  });

  it('loads the shipped outage scenario with one click, and the next API call shows up failed in the live journal', async () => {
    const sim = await start();
    const d = await dashboard(sim, viewport);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.loadShippedScenario(d.page, 'outage');
    // Loaded globally or as alice's own set: either way alice's next call meets it.
    const loaded = async (): Promise<string[]> => {
      const sets = await Promise.all(['', '?tenant=alice'].map(async (q) => ((await (await fetch(`${sim.url}/_sim/scenarios${q}`)).json()) as { scenarios: Array<{ name?: string }> }).scenarios));
      return sets.flat().map((s) => s.name ?? '');
    };
    expect(await poll(loaded, (names) => names.includes('outage'))).toContain('outage');

    const created = await createToken(sim.url, 'alice', 'pa');
    expect(created.status).toBe(503);
    const entry = ui.journalEntry(d.page, /\b503\b/);
    await entry.first().waitFor({ state: 'visible', timeout: 10_000 });
    await expect(entry.first().textContent()).resolves.toMatch(/outage/);
    expect(d.errors).toEqual([]);
    expectOwnOriginOnly(d, sim);
  });

  it('exports the state and imports it again', async () => {
    const sim = await start();
    const created = await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'Mycroft Holmes' });
    expect(created.status).toBe(201);
    const d = await dashboard(sim, viewport);
    await ui.waitForReady(d.page);

    const file = await ui.exportState(d.page);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(exported)).toContain(String(created.body.tokenId));

    // Empty the simulator, then import the file through the page: the token is back.
    expect((await fetch(`${sim.url}/_sim/reset`, { method: 'POST' })).status).toBe(204);
    await expect((await fetch(`${sim.url}/_sim/tokens?tenant=alice`)).json()).resolves.toEqual(expect.objectContaining({ tokens: [] }));
    await ui.importState(d.page, file);
    const ids = async (): Promise<string[]> => (await control<{ tokens: Array<{ tokenId: string }> }>(sim.url, '/tokens?tenant=alice')).tokens.map((t) => t.tokenId);
    expect(await poll(ids, (list) => list.length > 0)).toEqual([created.body.tokenId]);
    await ui.pickTenant(d.page, 'alice');
    await ui.tokenRow(d.page, String(created.body.tokenId)).waitFor({ state: 'visible', timeout: 10_000 });
    expect(d.errors).toEqual([]);
    expectOwnOriginOnly(d, sim);
  });

  it('fits the width: nothing wider than the window', async () => {
    const sim = await start();
    await createToken(sim.url, 'alice', 'pa');
    const d = await dashboard(sim, viewport);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.tokens(d.page).getByRole('row').nth(1).waitFor({ timeout: 10_000 });
    // The page does not scroll sideways; wide tables scroll inside their own box. On failure, the
    // outermost elements that stick out say where.
    const sticking = await d.page.evaluate(`(() => {
      const width = document.documentElement.clientWidth;
      const clipped = (el) => { for (let a = el.parentElement; a; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true; return false; };
      const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5 && !clipped(el));
      return out.filter((el) => !out.includes(el.parentElement)).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right) + 'px');
    })()`);
    expect(sticking).toEqual([]);
    expect(await d.page.evaluate('[document.documentElement.scrollWidth, document.body.scrollWidth, document.documentElement.clientWidth]')).toEqual([viewport.width, viewport.width, viewport.width]);
  });
});

// How fast it loads is a benchmark figure (`npm run bench`, the dashboard row), not a timing asserted here.
describe('the dashboard loads alone', () => {
  it("is where a browser's visit to the simulator's root lands", async () => {
    const sim = await start();
    const d = await openDashboard(session.browser, `${sim.url}/`, DESKTOP);
    session.open.push(d);
    expect(new URL(d.page.url()).pathname).toBe('/_sim/ui');
    await ui.waitForReady(d.page);
    await expect(ui.heading(d.page).textContent()).resolves.toBe('token-sim dashboard');
    expectOwnOriginOnly(d, sim);
  });
});

describe('the dashboard with --admin-token', () => {
  it('asks for the token once, keeps it for the session, and sends it on every call', async () => {
    const sim = await start({ adminToken: 'dash-s3cret' });
    const d = await dashboard(sim, DESKTOP);
    await ui.signIn(d.page, 'dash-s3cret');
    await ui.waitForReady(d.page);
    await expect(ui.tenantOptions(d.page)).resolves.toEqual(expect.arrayContaining(['alice', 'bob']));
    // It works: the clock moves through the page.
    await ui.pickTenant(d.page, 'alice');
    await ui.advanceClock(d.page, 'P1D');
    const now = async (): Promise<string> => (await control<{ now: string }>(sim.url, '/clock?tenant=alice', 'dash-s3cret')).now;
    expect(await poll(now, (t) => t !== '2030-01-01T00:00:00Z')).toBe('2030-01-02T00:00:00Z');
    // A reload in the same session does not ask again.
    await d.page.reload();
    await ui.waitForReady(d.page);
    await expect(ui.tokenField(d.page).count()).resolves.toBe(0);
    // Every control call carried the token (the header, or ?access_token= for the event stream).
    const calls = d.requests.filter((r) => new URL(r.url()).pathname.startsWith('/_sim/') && !new URL(r.url()).pathname.startsWith('/_sim/ui'));
    expect(calls.length).toBeGreaterThan(0);
    const sent = await Promise.all(calls.map(async (r) => ({ url: r.url(), auth: await r.headerValue('authorization') })));
    const afterSignIn = sent.slice(sent.findIndex((s) => s.auth === 'Bearer dash-s3cret' || s.url.includes('access_token=dash-s3cret')));
    expect(afterSignIn.filter((s) => s.auth !== 'Bearer dash-s3cret' && !s.url.includes('access_token=dash-s3cret'))).toEqual([]);
    expectOwnOriginOnly(d, sim);
  });
});

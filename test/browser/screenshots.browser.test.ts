/**
 * The dashboard's main views at 1280×800 and at 390 px wide, with some data in them (tokens, a payment, a
 * scenario, journal entries): each view shows its heading and fits the width. With
 * TOKEN_SIM_SCREENSHOTS=1 (or a folder) it also writes them as PNGs, docs/images/dashboard-<size>-<view>.png,
 * the screenshots docs/dashboard.md shows; CI does not ask for them.
 *
 *   TOKEN_SIM_SCREENSHOTS=1 NODE_OPTIONS=--experimental-vm-modules npx jest test/browser/screenshots
 */
import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RunningSimulator } from '../../src/index.js';
import { browserDescribe, createToken, DESKTOP, launchChromium, makeSale, openDashboard, PHONE, poll, screenshotDir, startBrowserSimulator } from '../support/browser.js';
import { ui } from './dashboard-page.js';

const describe = browserDescribe(import.meta.url);
jest.setTimeout(60_000);

let browser: Browser;
let sim: RunningSimulator;
const dir = screenshotDir();

beforeAll(async () => {
  browser = await launchChromium();
  sim = await startBrowserSimulator();
  expect((await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'Irene Adler', cardNumber: '5555555555554444' }, { namespace: 'shopper-1' })).status).toBe(201);
  expect((await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'John Watson', cardNumber: '4111111111111111' })).status).toBe(201);
  expect((await makeSale(sim.url, 'alice', 'pa', 'order-0001', 250)).status).toBe(201);
  expect((await makeSale(sim.url, 'alice', 'pa', 'order-0002', 1999)).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await sim?.close();
});

const SIZES = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

const VIEWS = ['Clock', 'Tokens', 'Payments', 'Journal', 'Scenarios', 'State', 'Webhook deliveries'] as const;

describe.each(SIZES)('the dashboard at %s size', (size, viewport) => {
  it('shows every main view, each within the width', async () => {
    const d = await openDashboard(browser, `${sim.url}/_sim/ui`, viewport);
    try {
      await ui.waitForReady(d.page);
      await ui.pickTenant(d.page, 'alice');
      await ui.tokens(d.page).getByRole('row').filter({ hasText: 'Irene Adler' }).waitFor({ timeout: 10_000 });
      await ui.payments(d.page).getByRole('row').filter({ hasText: 'order-0002' }).waitFor({ timeout: 10_000 });
      // A journal entry arrives over the stream once the page is open.
      await poll(async () => (await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'Mary Morstan', cardNumber: '4000056655665556' })).status, (s) => s === 201 || s === 200);
      await ui.journalEntries(d.page).first().waitFor({ timeout: 10_000 });
      // The page's own status line can say what happened last; keep the shots calm.
      await d.page.evaluate('document.activeElement && document.activeElement.blur()');
      if (dir !== undefined) await d.page.screenshot({ path: join(dir, `dashboard-${size}.png`) });
      for (const name of VIEWS) {
        const view = d.page.getByRole('region', { name: new RegExp(`^${name}\\b`) });
        await view.scrollIntoViewIfNeeded();
        await expect(view.getByRole('heading', { level: 2 }).first().isVisible()).resolves.toBe(true);
        const box = await view.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width + 0.5);
        if (dir !== undefined && ['Tokens', 'Journal', 'Scenarios', 'Payments'].includes(name)) {
          await view.screenshot({ path: join(dir, `dashboard-${size}-${name.toLowerCase().replace(/\s+/g, '-')}.png`) });
        }
      }
      expect(d.errors).toEqual([]);
    } finally {
      await d.context.close();
    }
  });
});

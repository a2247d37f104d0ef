/**
 * The dashboard's other controls in a real headless Chromium (contract 3.4): delete a token, refund and
 * reverse payments, scenario problems shown at their JSONPath, a journal entry opened to its masked
 * request and response; used by keyboard alone (skip link first, focus visible, buttons answer Enter);
 * light and dark by prefers-color-scheme.
 */
import { expect, it, jest } from '@jest/globals';
import type { RunningSimulator } from '../../src/index.js';
import { browserDescribe, browserSession, control, createToken, DESKTOP, makeSale, openDashboard, poll, startBrowserSimulator, type Dashboard } from '../support/browser.js';
import { ui } from './dashboard-page.js';

const describe = browserDescribe(import.meta.url);
jest.setTimeout(60_000);

const session = browserSession();

async function setUp(colorScheme: 'light' | 'dark' = 'light'): Promise<{ sim: RunningSimulator; d: Dashboard }> {
  const sim = await startBrowserSimulator();
  session.sims.push(sim);
  const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP, { colorScheme });
  session.open.push(d);
  await ui.waitForReady(d.page);
  await ui.pickTenant(d.page, 'alice');
  return { sim, d };
}

describe('the dashboard drives the simulator', () => {
  it('deletes a token', async () => {
    const { sim, d } = await setUp();
    const created = await createToken(sim.url, 'alice', 'pa', { cardHolderName: 'Irene Adler' });
    const tokenId = String(created.body.tokenId);
    await ui.tokenRow(d.page, tokenId).waitFor({ timeout: 10_000 });
    await ui.tokens(d.page).getByRole('button', { name: `Delete token ${tokenId}` }).click();
    await ui.tokenRow(d.page, tokenId).waitFor({ state: 'detached', timeout: 10_000 });
    expect((await control<{ tokens: unknown[] }>(sim.url, '/tokens?tenant=alice')).tokens).toEqual([]);
    expect(d.errors).toEqual([]);
  });

  it('refunds one payment and reverses another', async () => {
    const { sim, d } = await setUp();
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-0001', 250)).status).toBe(201);
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-0002', 1999)).status).toBe(201);
    const payments = ui.payments(d.page);
    await payments.getByRole('row').filter({ hasText: 'order-0002' }).waitFor({ timeout: 10_000 });
    await payments.getByRole('button', { name: 'Refund payment order-0001' }).click();
    await payments.getByRole('button', { name: 'Reverse payment order-0002' }).click();
    type Item = { transactionReference: string; refunded: number; lastEvent: string; events: Array<{ type: string }> };
    const read = async (): Promise<Item[]> => (await control<{ payments: Item[] }>(sim.url, '/payments?tenant=alice')).payments;
    const settled = await poll(read, (list) => list.every((p) => p.events.length > 1));
    const byRef = Object.fromEntries(settled.map((p) => [p.transactionReference, p.events.map((e) => e.type)]));
    expect(byRef['order-0001']!.some((t) => /refund/i.test(t))).toBe(true);
    expect(byRef['order-0002']!.some((t) => /revers|cancel/i.test(t))).toBe(true);
    // The page shows the refund of the first: its Refunded cell (the fifth) comes to the whole amount.
    const refunded = payments.getByRole('row').filter({ hasText: 'order-0001' }).getByRole('cell').nth(4);
    expect(await poll(async () => (await refunded.textContent())?.trim(), (t) => t === '£2.50')).toBe('£2.50');
    expect(d.errors).toEqual([]);
  });

  it('finds payments by transaction reference, through the control API’s filter, and shows all again', async () => {
    const { sim, d } = await setUp();
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-0001', 250)).status).toBe(201);
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-0002', 1999)).status).toBe(201);
    const payments = ui.payments(d.page);
    await ui.paymentRow(d.page, 'order-0002').waitFor({ timeout: 10_000 });
    await ui.findPayments(d.page, 'order-0001');
    await ui.paymentRow(d.page, 'order-0002').waitFor({ state: 'detached', timeout: 10_000 });
    // Once the found payment is shown (the list may re-render in between): the header row and that one payment.
    await ui.paymentRow(d.page, 'order-0001').waitFor({ timeout: 10_000 });
    expect(await payments.getByRole('row').allTextContents()).toHaveLength(2);
    await ui.findPayments(d.page, 'order-0003');
    await payments.getByText('No payments with transaction reference order-0003.').waitFor({ timeout: 10_000 });
    await ui.findPayments(d.page, '');
    await ui.paymentRow(d.page, 'order-0002').waitFor({ timeout: 10_000 });
    await ui.paymentRow(d.page, 'order-0001').waitFor({ timeout: 10_000 });
    expect(d.errors).toEqual([]);
  });

  it('shows the problems of a pasted scenario at their JSONPath, and changes nothing', async () => {
    const { sim, d } = await setUp();
    const scenarios = ui.scenarios(d.page);
    await scenarios.getByLabel('Scenario YAML').fill('name: typo\nrules:\n  - when: { opertion: sale }\n    then: { delayMs: 5 }\n');
    await scenarios.getByRole('button', { name: 'Apply scenarios' }).click();
    const alert = scenarios.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    await expect(alert.textContent()).resolves.toContain('$.rules[0].when.opertion');
    expect((await control<{ scenarios: unknown[] }>(sim.url, '/scenarios?tenant=alice')).scenarios).toEqual([]);
    // The 400 is the expected answer here, not a fault of the page.
    expect(d.errors.filter((e) => !/^400 PUT .*\/_sim\/scenarios/.test(e) && !/status of 400/.test(e))).toEqual([]);
  });

  it('opens a journal entry to its masked request and response; the full card number appears nowhere', async () => {
    const { sim, d } = await setUp();
    expect((await createToken(sim.url, 'alice', 'pa', { cardNumber: '4444333322221111' })).status).toBe(201);
    const entry = ui.journalEntry(d.page, 'createToken').first();
    await entry.waitFor({ timeout: 10_000 });
    await entry.locator('summary').click();
    await expect(entry.getByRole('heading', { name: 'Request' }).isVisible()).resolves.toBe(true);
    await expect(entry.getByRole('heading', { name: 'Response' }).isVisible()).resolves.toBe(true);
    const text = (await entry.textContent()) ?? '';
    expect(text).toContain('4444********1111');
    expect(await d.page.content()).not.toContain('4444333322221111');
    expect(d.errors).toEqual([]);
  });
});

describe('the dashboard for people', () => {
  it('is usable by keyboard: the skip link comes first, focus is visible, a button answers Enter', async () => {
    const { sim, d } = await setUp();
    await d.page.keyboard.press('Tab');
    const first = d.page.locator(':focus');
    await expect(first.textContent()).resolves.toBe('Skip to content');
    const outline = async (): Promise<string> => String(await d.page.evaluate('(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + " " + s.outlineWidth; })()'));
    expect(await outline()).not.toMatch(/^none/);
    // Focus the 1-day button and press Enter: alice's clock moves a day.
    await ui.clock(d.page).getByRole('button', { name: 'Advance 1 day', exact: true }).focus();
    expect(await outline()).not.toMatch(/^none/);
    await d.page.keyboard.press('Enter');
    const now = async (): Promise<string> => (await control<{ now: string }>(sim.url, '/clock?tenant=alice')).now;
    expect(await poll(now, (t) => t !== '2030-01-01T00:00:00Z')).toBe('2030-01-02T00:00:00Z');
  });

  it('follows prefers-color-scheme: light and dark backgrounds differ, text stays readable', async () => {
    const colours = async (scheme: 'light' | 'dark'): Promise<[string, string]> => {
      const { d } = await setUp(scheme);
      return d.page.evaluate<[string, string]>('(() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; })()');
    };
    const light = await colours('light');
    const dark = await colours('dark');
    expect(light[0]).not.toBe(dark[0]);
    expect(light[1]).not.toBe(dark[1]);
    // Relative luminance: the light background is bright, the dark one dim; text contrasts with each.
    const lum = (rgb: string): number => {
      const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const contrast = ([bg, fg]: [string, string]): number => (Math.max(lum(bg), lum(fg)) + 0.05) / (Math.min(lum(bg), lum(fg)) + 0.05);
    expect(lum(light[0])).toBeGreaterThan(0.5);
    expect(lum(dark[0])).toBeLessThan(0.1);
    expect(contrast(light)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(dark)).toBeGreaterThanOrEqual(4.5);
  });
});

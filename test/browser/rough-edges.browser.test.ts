/**
 * The dashboard's rough edges (contract 4.1, issue 23) in a real headless Chromium: a section says it is
 * loading until its first data arrives (never "No tokens." beside a header that counts 4, nor another
 * tenant's list after a switch); a refused payment shows its refusal code; tokens and payments are listed
 * newest first, then by id; the Refund and Reverse buttons stand visibly apart.
 */
import { afterEach, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Route } from 'playwright-core';
import type { RunningSimulator } from '../../src/index.js';
import { browserDescribe, browserSession, control, createToken, DESKTOP, makeSale, openDashboard, startBrowserSimulator, type Dashboard } from '../support/browser.js';
import { ui } from './dashboard-page.js';

const describe = browserDescribe(import.meta.url);
jest.setTimeout(60_000);

const session = browserSession();

async function start(options: Parameters<typeof startBrowserSimulator>[0] = {}): Promise<RunningSimulator> {
  const sim = await startBrowserSimulator(options);
  session.sims.push(sim);
  return sim;
}

const receivers: Server[] = [];
afterEach(async () => {
  for (const server of receivers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A webhook receiver that takes every event (204): its URL. */
async function receiver(): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receivers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

/**
 * The dashboard with `tenant` picked (as a returning visitor's tab keeps it), whose calls to `path` wait
 * until `release()`; the page is opened only after the hold is in place, so that even its first call waits.
 */
async function openHolding(sim: RunningSimulator, tenant: string, path: string): Promise<{ d: Dashboard; release: () => void }> {
  const context = await session.browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = false;
  const hold = async (route: Route): Promise<void> => {
    if (holding) await held;
    await route.continue();
  };
  await context.route((url) => url.pathname === `/_sim${path}`, hold);
  await context.addInitScript({ content: `sessionStorage.setItem('token-sim.tenant', ${JSON.stringify(tenant)})` });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  const d: Dashboard = { context, page, requests: [], errors };
  session.open.push(d);
  holding = true;
  await page.goto(`${sim.url}/_sim/ui`);
  return { d, release: () => ((holding = false), release()) };
}

async function tokens(sim: RunningSimulator, tenant: string, password: string, count: number): Promise<void> {
  const cards = ['4444333322221111', '5555555555554444', '4111111111111111', '4000056655665556'];
  for (let i = 0; i < count; i++) expect((await createToken(sim.url, tenant, password, { cardNumber: cards[i % cards.length], cardHolderName: `Holder ${i}` })).status).toBe(201);
}

const advance = async (sim: RunningSimulator, tenant: string, by: string): Promise<void> => {
  const res = await fetch(`${sim.url}/_sim/clock/advance?tenant=${tenant}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ by }) });
  expect(res.status).toBe(200);
};

describe('the dashboard says it is loading until the data arrives', () => {
  it('shows "Loading…", never "No tokens.", while the header already counts 4 tokens', async () => {
    const sim = await start();
    await tokens(sim, 'alice', 'pa', 4);
    const { d, release } = await openHolding(sim, 'alice', '/tokens');
    await ui.tenantSummary(d.page).filter({ hasText: /^4 tokens · / }).waitFor({ timeout: 10_000 });
    await ui.loading(d.page, 'Tokens').waitFor({ timeout: 10_000 });
    await expect(ui.tokens(d.page).getByText('No tokens.').count()).resolves.toBe(0);
    await expect(ui.tokens(d.page).getAttribute('aria-busy')).resolves.toBe('true');

    release();
    await ui.dataRows(d.page, 'Tokens').nth(3).waitFor({ timeout: 10_000 });
    await expect(ui.dataRows(d.page, 'Tokens').count()).resolves.toBe(4);
    await expect(ui.loading(d.page, 'Tokens').count()).resolves.toBe(0);
    await expect(ui.tokens(d.page).getAttribute('aria-busy')).resolves.toBe('false');
    expect(d.errors).toEqual([]);
  });

  it('says it is loading again after a switch to another tenant, instead of showing the last tenant’s empty list', async () => {
    const sim = await start();
    await tokens(sim, 'alice', 'pa', 4);
    // bob has none: his "No tokens." is right for bob, and must not stay on screen under alice's header.
    const { d, release } = await openHolding(sim, 'bob', '/tokens');
    release();
    await ui.tokens(d.page).getByText('No tokens.').waitFor({ timeout: 10_000 });
    // Hold alice's list: the page must say it is loading it.
    let releaseAlice = (): void => undefined;
    const aliceHeld = new Promise<void>((resolve) => {
      releaseAlice = resolve;
    });
    await d.page.route(
      (url) => url.pathname === '/_sim/tokens' && url.searchParams.get('tenant') === 'alice',
      async (route) => {
        await aliceHeld;
        await route.continue();
      },
    );
    await ui.pickTenant(d.page, 'alice');
    await ui.tenantSummary(d.page).filter({ hasText: /^4 tokens · / }).waitFor({ timeout: 10_000 });
    await ui.loading(d.page, 'Tokens').waitFor({ timeout: 10_000 });
    await expect(ui.tokens(d.page).getByText('No tokens.').count()).resolves.toBe(0);
    releaseAlice();
    await ui.dataRows(d.page, 'Tokens').nth(3).waitFor({ timeout: 10_000 });
    expect(d.errors).toEqual([]);
  });

  it('says it is loading, not "No tenant to show.", until the tenants arrive', async () => {
    const sim = await start();
    const { d, release } = await openHolding(sim, 'alice', '/tenants');
    await ui.loading(d.page, '').waitFor({ timeout: 10_000 });
    await expect(d.page.getByText('No tenant to show.').count()).resolves.toBe(0);
    release();
    await ui.waitForReady(d.page);
    // Every section's own load follows the tenants' (on a loaded machine, some still run here): each ends.
    await ui.loading(d.page, '').first().waitFor({ state: 'detached', timeout: 10_000 });
    await expect(ui.loading(d.page, '').count()).resolves.toBe(0);
    expect(d.errors).toEqual([]);
  });

  it('says so in the scenarios and webhook deliveries too, not "None." or "No deliveries."', async () => {
    const sim = await start();
    const { d, release } = await openHolding(sim, 'alice', '/scenarios');
    let releaseWebhooks = (): void => undefined;
    const webhooksHeld = new Promise<void>((resolve) => {
      releaseWebhooks = resolve;
    });
    await d.page.route(
      (url) => url.pathname === '/_sim/webhooks',
      async (route) => {
        await webhooksHeld;
        await route.continue();
      },
    );
    await ui.waitForReady(d.page);
    await ui.loading(d.page, 'Scenarios').waitFor({ timeout: 10_000 });
    await ui.loading(d.page, 'Webhook deliveries').waitFor({ timeout: 10_000 });
    await expect(ui.scenarios(d.page).getByText('None.', { exact: true }).count()).resolves.toBe(0);
    await expect(ui.webhooks(d.page).getByText('No deliveries.').count()).resolves.toBe(0);
    release();
    releaseWebhooks();
    await ui.scenarios(d.page).getByText('None.', { exact: true }).waitFor({ timeout: 10_000 });
    await ui.webhooks(d.page).getByText('No deliveries.').waitFor({ timeout: 10_000 });
    expect(d.errors).toEqual([]);
  });

  it('says the journal is loading while its stream is not open, not "No requests yet."', async () => {
    const sim = await start();
    expect((await createToken(sim.url, 'alice', 'pa')).status).toBe(201);
    const context = await session.browser.newContext({ viewport: DESKTOP });
    // The stream cannot open: the journal has not heard from the simulator, so it cannot say there is nothing.
    await context.route((url) => url.pathname === '/_sim/requests/stream', (route) => route.abort());
    const page = await context.newPage();
    session.open.push({ context, page, requests: [], errors: [] });
    await page.goto(`${sim.url}/_sim/ui`);
    await ui.waitForReady(page);
    await ui.loading(page, 'Journal').waitFor({ timeout: 10_000 });
    await expect(ui.journal(page).getByText(/^No requests yet/).count()).resolves.toBe(0);
  });
});

describe('the payments list', () => {
  it('shows a refused payment’s refusal code and description', async () => {
    const sim = await start();
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-ok', 250)).status).toBe(201);
    const refused = await makeSale(sim.url, 'alice', 'pa', 'order-refused', 250, '4444333322221111', 'REFUSED51');
    expect([refused.status, refused.body.outcome]).toEqual([201, 'refused']);
    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    const outcome = ui.paymentRow(d.page, 'order-refused').getByRole('cell').nth(1);
    await outcome.waitFor({ timeout: 10_000 });
    await expect(outcome.textContent()).resolves.toBe('refused code 51: LIMIT EXCEEDED');
    // An approved payment has no refusal to show.
    await expect(ui.paymentRow(d.page, 'order-ok').getByRole('cell').nth(1).textContent()).resolves.toBe('sentForSettlement');
    expect(d.errors).toEqual([]);
  });

  it('keeps the Refund and Reverse buttons visibly apart', async () => {
    const sim = await start();
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-0001', 250)).status).toBe(201);
    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    const refund = ui.payments(d.page).getByRole('button', { name: 'Refund payment order-0001' });
    const reverse = ui.payments(d.page).getByRole('button', { name: 'Reverse payment order-0001' });
    await reverse.waitFor({ timeout: 10_000 });
    const a = await refund.boundingBox();
    const b = await reverse.boundingBox();
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    // Side by side on one line, with a gap of at least 6 px between them (0.5 rem at 15 px is 7.5 px).
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(1);
    expect(b!.x - (a!.x + a!.width)).toBeGreaterThanOrEqual(6);
  });
});

describe('the order of the lists', () => {
  it('lists tokens and payments newest first when the clock moves between them', async () => {
    const sim = await start();
    for (const [i, holder] of ['First Holder', 'Second Holder', 'Third Holder'].entries()) {
      expect((await createToken(sim.url, 'alice', 'pa', { cardHolderName: holder, cardNumber: ['4444333322221111', '5555555555554444', '4111111111111111'][i] })).status).toBe(201);
      expect((await makeSale(sim.url, 'alice', 'pa', `order-${i + 1}`, 100 + i)).status).toBe(201);
      await advance(sim, 'alice', 'PT1M');
    }
    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.dataRows(d.page, 'Tokens').nth(2).waitFor({ timeout: 10_000 });
    await ui.dataRows(d.page, 'Payments').nth(2).waitFor({ timeout: 10_000 });
    const holders = await ui.dataRows(d.page, 'Tokens').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[2]?.textContent));
    expect(holders).toEqual(['Third Holder', 'Second Holder', 'First Holder']);
    const references = await ui.dataRows(d.page, 'Payments').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('td')[0]?.textContent));
    expect(references).toEqual(['order-3', 'order-2', 'order-1']);
  });

  it('lists webhook deliveries newest first', async () => {
    const sim = await start({ webhookUrl: await receiver() });
    for (const ref of ['order-1', 'order-2', 'order-3']) expect((await makeSale(sim.url, 'alice', 'pa', ref, 250)).status).toBe(201);
    await fetch(`${sim.url}/_sim/webhooks/flush`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const seqs = (await control<{ webhooks: { seq: number }[] }>(sim.url, '/webhooks?tenant=alice')).webhooks.map((w) => String(w.seq));
    expect(seqs).toHaveLength(3);
    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.dataRows(d.page, 'Webhook deliveries').nth(2).waitFor({ timeout: 10_000 });
    const shown = await ui.dataRows(d.page, 'Webhook deliveries').evaluateAll((rows) => rows.map((r) => r.querySelector('td')?.textContent));
    expect(shown).toEqual([...seqs].reverse());
  });

  it('sends a delivery again from its row: the same eventId, a new delivery of its own', async () => {
    const events: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        events.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receivers.push(server);
    const sim = await start({ webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });
    expect((await makeSale(sim.url, 'alice', 'pa', 'order-1', 250)).status).toBe(201);
    await fetch(`${sim.url}/_sim/webhooks/flush`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const [first] = (await control<{ webhooks: { id: string; eventId: string }[] }>(sim.url, '/webhooks?tenant=alice')).webhooks;
    expect(first).toBeDefined();
    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.webhooks(d.page).getByRole('button', { name: `Resend delivery ${first!.id}` }).click();
    await ui.dataRows(d.page, 'Webhook deliveries').nth(1).waitFor({ timeout: 10_000 });
    const listed = (await control<{ webhooks: { id: string; eventId: string }[] }>(sim.url, '/webhooks?tenant=alice')).webhooks;
    expect(listed.map((w) => w.eventId)).toEqual([first!.eventId, first!.eventId]);
    expect(listed[1]!.id).not.toBe(first!.id);
    await fetch(`${sim.url}/_sim/webhooks/flush`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(events).toHaveLength(2);
    expect(events[1]).toBe(events[0]);
    expect(d.errors).toEqual([]);
  });

  it('lists what was made at one frozen instant by id, the same on every refresh', async () => {
    const sim = await start();
    await tokens(sim, 'alice', 'pa', 4);
    for (const ref of ['order-a', 'order-b', 'order-c', 'order-d']) expect((await makeSale(sim.url, 'alice', 'pa', ref, 250)).status).toBe(201);
    const tokenIds = (await control<{ tokens: { tokenId: string }[] }>(sim.url, '/tokens?tenant=alice')).tokens.map((t) => t.tokenId);
    const paymentRefs = (await control<{ payments: { paymentId: string; transactionReference: string }[] }>(sim.url, '/payments?tenant=alice')).payments;
    // One instant: newest first says nothing, so the id decides (the reverse of the control API's order).
    const byIdNewestFirst = [...tokenIds].sort().reverse();
    const paymentsById = [...paymentRefs].sort((x, y) => (x.paymentId < y.paymentId ? 1 : -1)).map((p) => p.transactionReference);

    const d = await openDashboard(session.browser, `${sim.url}/_sim/ui`, DESKTOP);
    session.open.push(d);
    await ui.waitForReady(d.page);
    await ui.pickTenant(d.page, 'alice');
    await ui.dataRows(d.page, 'Tokens').nth(3).waitFor({ timeout: 10_000 });
    await ui.dataRows(d.page, 'Payments').nth(3).waitFor({ timeout: 10_000 });
    const shown = async (): Promise<[unknown[], unknown[]]> => [
      await ui.dataRows(d.page, 'Tokens').evaluateAll((rows) => rows.map((r) => r.querySelector('td code')?.textContent)),
      await ui.dataRows(d.page, 'Payments').evaluateAll((rows) => rows.map((r) => r.querySelector('td code')?.textContent)),
    ];
    expect(await shown()).toEqual([byIdNewestFirst, paymentsById]);
    // Loaded again, the page shows the same order.
    await d.page.reload();
    await ui.waitForReady(d.page);
    await ui.dataRows(d.page, 'Tokens').nth(3).waitFor({ timeout: 10_000 });
    await ui.dataRows(d.page, 'Payments').nth(3).waitFor({ timeout: 10_000 });
    expect(await shown()).toEqual([byIdNewestFirst, paymentsById]);
  });
});

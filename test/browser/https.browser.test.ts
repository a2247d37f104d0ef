/**
 * The dashboard over HTTPS (contract 4.3, decision 0053) in a real headless Chromium: served with `--tls`, it
 * loads, moves the clock through /_sim (a write from its own https:// origin, which the origin check takes) and
 * shows the request in the live journal (an EventSource over TLS). Chromium trusts exactly the simulator's key
 * (`--ignore-certificate-errors-spki-list`), not every certificate.
 */
import { afterAll, expect, it, jest } from '@jest/globals';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RunningSimulator } from '../../src/index.js';
import { browserDescribe, DESKTOP, launchChromium, openDashboard, originOf, poll, startBrowserSimulator, type Dashboard } from '../support/browser.js';
import { ui } from './dashboard-page.js';

const describe = browserDescribe(import.meta.url);
jest.setTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), 'token-sim-browser-tls-'));
let sim: RunningSimulator | undefined;
let browser: Browser | undefined;
let d: Dashboard | undefined;
afterAll(async () => {
  await d?.context.close();
  await browser?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** POST /tokens as alice over HTTPS, trusting the CA: the status. */
function createTokenOverTls(base: string, ca: string): Promise<number> {
  const type = 'application/vnd.service.tokens-v1.hal+json';
  const body = JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'Irene Adler', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } }, merchant: { entity: 'default' } });
  return new Promise((resolve, reject) => {
    const req = request(`${base}/tokens`, { method: 'POST', ca, headers: { Authorization: `Basic ${Buffer.from('alice:pa').toString('base64')}`, Accept: type, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the dashboard over HTTPS', () => {
  it('opens from https://, moves the clock and shows that call in the live journal, with no error and nothing from another origin', async () => {
    sim = await startBrowserSimulator({ tls: true, tlsDir: dir });
    expect(sim.url.startsWith('https://')).toBe(true);
    const key = new X509Certificate(readFileSync(join(dir, 'server.pem'))).publicKey.export({ type: 'spki', format: 'der' });
    browser = await launchChromium([`--ignore-certificate-errors-spki-list=${createHash('sha256').update(key).digest('base64')}`]);
    d = await openDashboard(browser, `${sim.url}/_sim/ui`, DESKTOP);
    await ui.waitForReady(d.page);
    await expect(ui.tenantOptions(d.page)).resolves.toEqual(expect.arrayContaining(['alice', 'bob']));
    await ui.pickTenant(d.page, 'alice');
    await ui.advanceClock(d.page, 'P1D');
    const page = d.page;
    expect(await poll(() => ui.clockText(page), (text) => text.includes('2030-01-02'))).toContain('2030-01-02');
    // An API call made outside the page reaches it through the live journal.
    expect(await createTokenOverTls(sim.url, readFileSync(join(dir, 'ca.pem'), 'utf8'))).toBe(201);
    const entry = ui.journalEntry(d.page, /\b201\b/);
    await entry.first().waitFor({ state: 'visible', timeout: 10_000 });
    expect(d.errors).toEqual([]);
    expect(d.requests.map((r) => r.url()).filter((url) => !url.startsWith(`${originOf(sim!.url)}/`))).toEqual([]);
  });
});

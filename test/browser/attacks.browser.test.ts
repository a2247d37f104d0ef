/**
 * What a web page can do to a simulator on a developer's laptop, tried in a real headless Chromium (contract
 * 4.1, decision 0042): DNS rebinding (the page's own name resolved to 127.0.0.1 by a host-resolver rule),
 * and cross-site writes without a preflight (text/plain fetch, HTML form). None reads or changes anything;
 * a page of an --allowed-origin origin drives /_sim with JSON.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { browserDescribe, control, createToken, launchChromium, startBrowserSimulator } from '../support/browser.js';
import type { RunningSimulator } from '../../src/index.js';

browserDescribe(import.meta.url)('a web page against a running token-sim', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium([
      '--host-resolver-rules=MAP evil.example 127.0.0.1, MAP attacker.test 127.0.0.1',
      // Chromium's own Local Network Access checks would stop these pages before they reach the simulator;
      // other browsers (and older Chromiums) have none. Off here, so that what is tested is token-sim's own defence.
      '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults',
    ]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A page at `url` whose document is `html` (served by the test, not by the simulator); its other requests go out. */
  async function pageAt(url: string, html: string): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
    await page.goto(url);
    return page;
  }

  async function withSimulator(options: Parameters<typeof startBrowserSimulator>[0], test: (sim: RunningSimulator, port: string) => Promise<void>): Promise<void> {
    const sim = await startBrowserSimulator(options);
    try {
      expect((await createToken(sim.url, 'alice', 'pa')).status).toBe(201);
      await test(sim, new URL(sim.url).port);
    } finally {
      await sim.close();
    }
  }

  it('gives a rebinding page (its own name now 127.0.0.1) 403 on /_sim, the API and the dashboard, and changes nothing', async () => {
    await withSimulator({}, async (sim, port) => {
      // The page was loaded from evil.example:<port> before the name was rebound; now its requests reach the simulator.
      const page = await pageAt(`http://evil.example:${port}/attack`, '<html><body>attack</body></html>');
      const statuses = await page.evaluate(async () => {
        const status = async (path: string, init?: RequestInit) => (await fetch(path, init)).status;
        return {
          state: await status('/_sim/state'),
          tokens: await status('/_sim/tokens'),
          requests: await status('/_sim/requests'),
          ui: await status('/_sim/ui'),
          api: await status('/tokens', { headers: { Authorization: `Basic ${btoa('alice:pa')}` } }),
          scenarios: await status('/_sim/scenarios', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"name":"x","rules":[]}' }),
          reset: await status('/_sim/reset', { method: 'POST' }),
        };
      });
      expect(statuses).toEqual({ state: 403, tokens: 403, requests: 403, ui: 403, api: 403, scenarios: 403, reset: 403 });
      expect((await control<{ tokens: unknown[] }>(sim.url, '/tokens')).tokens).toHaveLength(1);
      await page.context().close();
    });
  });

  it('lets a page of another site change nothing: a text/plain clock advance, an empty form POST to /_sim/reset', async () => {
    await withSimulator({}, async (sim) => {
      const page = await pageAt(
        'http://attacker.test:8000/',
        `<html><body><iframe name="sink"></iframe><form id="f" method="POST" action="${sim.url}/_sim/reset" target="sink"></form></body></html>`,
      );
      await page.evaluate(async (base) => {
        await fetch(`${base}/_sim/clock/advance`, { method: 'POST', mode: 'no-cors', body: '{"by":"P400D"}' }).catch(() => undefined);
        await fetch(`${base}/_sim/reset`, { method: 'POST', mode: 'no-cors' }).catch(() => undefined);
      }, sim.url);
      const reset = page.waitForResponse((res) => res.url().endsWith('/_sim/reset') && res.request().method() === 'POST' && res.frame().name() === 'sink');
      await page.$eval('#f', (form) => (form as unknown as { submit(): void }).submit());
      expect((await reset).status()).toBe(403);
      expect(await control(sim.url, '/clock')).toEqual({ now: '2030-01-01T00:00:00Z', frozen: true });
      expect((await control<{ tokens: unknown[] }>(sim.url, '/tokens')).tokens).toHaveLength(1);
      await page.context().close();
    });
  });

  it('lets a page of an --allowed-origin origin advance the clock with JSON (CORS preflight answered)', async () => {
    await withSimulator({ allowedOrigins: ['http://attacker.test:8000'] }, async (sim) => {
      const page = await pageAt('http://attacker.test:8000/', '<html><body>allowed</body></html>');
      const answer = await page.evaluate(async (base) => {
        const res = await fetch(`${base}/_sim/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"by":"P1D"}' });
        return { status: res.status, body: (await res.json()) };
      }, sim.url);
      expect(answer).toEqual({ status: 200, body: { now: '2030-01-02T00:00:00Z', frozen: true } });
      await page.context().close();
    });
  });
});

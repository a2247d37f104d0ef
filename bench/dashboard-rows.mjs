// The dashboard row of `npm run bench`: how long the dashboard takes to load from a local token-sim, as a real
// headless Chromium measures it (navigation start to the end of the load event), in fresh browser contexts.
// Debian's Chromium (CHROMIUM_PATH or /usr/bin/chromium), driven by playwright-core: no browser download.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { median, spawnServer, stop } from './harness.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LOADS = 5;

/** The median load time in ms of LOADS fresh loads after one unmeasured, or why none was measured. */
export async function dashboardLoad(cli) {
  if (!existsSync(CHROMIUM)) return { missing: `Chromium not found at ${CHROMIUM}` };
  const server = await spawnServer('token-sim (dashboard)', cli, ['--port', '0', '--log', 'silent']);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-background-networking'] });
  try {
    const times = [];
    for (let i = 0; i <= LOADS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/_sim/ui`, { waitUntil: 'load' });
      const took = await page.evaluate(() => {
        const [n] = performance.getEntriesByType('navigation');
        return n.loadEventEnd - n.startTime;
      });
      if (i > 0) times.push(took);
      await context.close();
    }
    return { ms: median(times), times };
  } finally {
    await browser.close();
    await stop(server);
  }
}

/**
 * The dashboard's browser tests (test/browser/*.browser.test.ts, in the slow project): a real simulator
 * (startSimulator on port 0) and a real headless Chromium, Debian's `chromium` driven by playwright-core
 * (no browser download: the system executable, `CHROMIUM_PATH` or /usr/bin/chromium).
 *
 * Without Chromium a suite is skipped, saying so in one line; with CI=true (set by .ci/run, which installs
 * Chromium) it never skips: a missing browser fails the suite there.
 */
import { afterAll, afterEach, beforeAll, describe } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why Chromium cannot run here, or undefined when it can. */
function chromiumMissing(): string | undefined {
  if (!existsSync(CHROMIUM)) return `Chromium not found at ${CHROMIUM}`;
  const run = spawnSync(CHROMIUM, ['--headless', '--version'], { encoding: 'utf8', timeout: 20_000 });
  if (run.status !== 0) return `${CHROMIUM} --version failed (${(run.stderr || run.error?.message || '').trim().split('\n')[0]})`;
  return undefined;
}

let checked: { reason: string | undefined } | undefined;
/** Why Chromium cannot run here (checked once per test file), or undefined when it can. */
const missing = (): string | undefined => (checked ??= { reason: chromiumMissing() }).reason;

/**
 * The line that says a browser suite is skipped, or undefined when it runs: it runs when Chromium is
 * there, and always under CI=true (where a missing Chromium fails it instead).
 */
export function skipLine(file: string, reason: string | undefined, ci: string | undefined): string | undefined {
  if (reason === undefined || ci === 'true') return undefined;
  return `SKIPPED the dashboard browser tests (${file}): ${reason}; install it (apt-get install chromium) or set CHROMIUM_PATH. CI (CI=true) never skips them.`;
}

/**
 * `describe`, or `describe.skip` with one line saying which suite is skipped and why when there is no
 * Chromium outside CI. Under CI=true a missing Chromium is not a reason to skip: the suite runs and fails.
 */
export function browserDescribe(file: string): typeof describe | typeof describe.skip {
  const line = skipLine(relative(ROOT, fileURLToPath(file)), missing(), process.env.CI);
  if (line === undefined) return describe;
  // Straight to stderr: jest shows no console output of a suite whose tests are all skipped.
  process.stderr.write(`${line}\n`);
  return describe.skip;
}

/** A headless Chromium; `args` adds command-line switches (a host-resolver rule, say). */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  const reason = missing();
  if (reason !== undefined) throw new Error(`the dashboard browser tests need Chromium: ${reason}`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', ...args] });
}

/** The two sizes the contract names. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface Dashboard {
  context: BrowserContext;
  page: Page;
  /** Every request the page made, in order. */
  requests: Request[];
  /** Every console error, uncaught page error and failed (4xx/5xx) response. */
  errors: string[];
}

/** A fresh browser context (own storage) at `viewport` and colour scheme, recording requests and errors, on `url`. */
export async function openDashboard(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number } = DESKTOP,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<Dashboard> {
  const context = await browser.newContext({ viewport, acceptDownloads: true, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const requests: Request[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request));
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // Chromium asks for /favicon.ico by itself (not the page: playwright sees no request for it); the
    // page has none, and that 404 is no fault of the page.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  await page.goto(url);
  return { context, page, requests, errors };
}

/** A real simulator on a free port, frozen at a known virtual time, with two tenants. */
export async function startBrowserSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator(
    { port: 0, seed: 'browser', now: '2030-01-01T00:00:00Z', frozen: true, users: ['alice:pa', 'bob:pb'], ...options },
    { writeErr: () => undefined },
  );
}

/** The simulator's own origin, e.g. http://127.0.0.1:40123. */
export const originOf = (url: string): string => new URL(url).origin;

/** Where screenshots go when TOKEN_SIM_SCREENSHOTS asks for them (a folder; `1` means docs/images). */
export function screenshotDir(): string | undefined {
  const asked = process.env.TOKEN_SIM_SCREENSHOTS;
  if (asked === undefined || asked === '' || asked === '0') return undefined;
  const dir = asked === '1' ? join(ROOT, 'docs', 'images') : asked;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A token created through the API with a tenant's Basic credentials: its tokenId. */
export async function createToken(base: string, user: string, password: string, card: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const type = 'application/vnd.service.tokens-v1.hal+json';
  const res = await fetch(`${base}/tokens`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`, Accept: type, 'Content-Type': type },
    body: JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 }, ...card },
      merchant: { entity: 'default' },
      ...overrides,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The value `read` gives once `accept` holds for it, read again every 100 ms for up to `timeoutMs`; the
 * last value when the time runs out (so that the test's own expect shows what was there).
 */
export async function poll<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** GET a control route as JSON (with the admin token when given). */
export async function control<T = Record<string, unknown>>(base: string, path: string, adminToken?: string): Promise<T> {
  const res = await fetch(`${base}/_sim${path}`, adminToken === undefined ? {} : { headers: { Authorization: `Bearer ${adminToken}` } });
  return (await res.json()) as T;
}

/**
 * A card-on-file sale through the API with a tenant's Basic credentials: its status and body. The card
 * holder name can ask the sandbox for a refusal (`REFUSED51`: refused with code 51).
 */
export async function makeSale(
  base: string,
  user: string,
  password: string,
  reference: string,
  amount: number,
  cardNumber = '4444333322221111',
  cardHolderName = 'Sherlock Holmes',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/payments/sales/migrateCardOnFile`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      'Content-Type': 'application/vnd.service.payments-v5+json',
      Accept: 'application/vnd.service.payments-v5.hal+json',
    },
    body: JSON.stringify({
      instruction: {
        value: { amount, currency: 'GBP' },
        narrative: { line1: 'Baker Street Stores' },
        paymentInstrument: { type: 'card/plain', cardNumber, cardHolderName, cardExpiryDate: { month: 5, year: 2035 } },
      },
      merchant: { entity: 'default' },
      transactionReference: reference,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** One Chromium for a test file, and what each test opens (contexts, simulators), closed after it. */
export interface BrowserSession {
  readonly browser: Browser;
  readonly open: Dashboard[];
  readonly sims: RunningSimulator[];
}

/** Registers the file's hooks: launch Chromium once, close each test's dashboards and simulators after it. */
export function browserSession(): BrowserSession {
  let browser: Browser | undefined;
  const open: Dashboard[] = [];
  const sims: RunningSimulator[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.context.close()));
    await Promise.all(sims.splice(0).map((s) => s.close()));
  });
  return {
    get browser() {
      return browser as Browser;
    },
    open,
    sims,
  };
}

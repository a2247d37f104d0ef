/**
 * How the browser tests find and drive the dashboard's controls: by role and accessible name only (the
 * names src/ui/main.ts gives its landmarks, headings, labels and buttons), as a person or a screen reader
 * finds them. One place, so that a renamed control is one change here.
 */
import type { Locator, Page } from 'playwright-core';

/** A section (`<section aria-labelledby>` → a region named by its heading, which may end with a count). */
const section = (page: Page, heading: string): Locator => page.getByRole('region', { name: new RegExp(`^${heading}\\b`) });

export const ui = {
  /** The page's one level-1 heading. */
  heading: (page: Page): Locator => page.getByRole('heading', { level: 1 }),

  /** The tenant picker (fed by GET /_sim/tenants). */
  tenantPicker: (page: Page): Locator => page.getByLabel('Tenant', { exact: true }),

  /** The page has loaded its data: the tenant picker lists at least one tenant and the clock shows a time. */
  async waitForReady(page: Page): Promise<void> {
    await page.getByLabel('Tenant', { exact: true }).locator('option').first().waitFor({ state: 'attached', timeout: 10_000 });
    await section(page, 'Clock').getByLabel('Virtual time').filter({ hasText: /\d{4}-\d\d-\d\d/ }).waitFor({ timeout: 10_000 });
  },

  async tenantOptions(page: Page): Promise<string[]> {
    return page.getByLabel('Tenant', { exact: true }).locator('option').allTextContents();
  },

  /** What the top says of the picked tenant: `4 tokens · 0 payments · shared clock`. */
  tenantSummary: (page: Page): Locator => page.getByRole('banner').getByText(/\d+ tokens? · \d+ payments? · /),

  async pickTenant(page: Page, tenant: string): Promise<void> {
    await page.getByLabel('Tenant', { exact: true }).selectOption(tenant);
  },

  /** The clock section, and the virtual time it shows (`2030-01-01 00:00:00 UTC`). */
  clock: (page: Page): Locator => section(page, 'Clock'),
  async clockText(page: Page): Promise<string> {
    return (await section(page, 'Clock').getByLabel('Virtual time').textContent()) ?? '';
  },

  /** Advances the picked tenant's clock by an ISO duration: the quick button for 1 h, 1 d or 8 d, else the field. */
  async advanceClock(page: Page, by: string): Promise<void> {
    const clock = section(page, 'Clock');
    const quick: Record<string, string> = { PT1H: 'Advance 1 hour', P1D: 'Advance 1 day', P8D: 'Advance 8 days' };
    const name = quick[by];
    if (name !== undefined) {
      await clock.getByRole('button', { name, exact: true }).click();
      return;
    }
    await clock.getByLabel('Duration (ISO 8601)').fill(by);
    await clock.getByRole('button', { name: 'Advance', exact: true }).click();
  },

  /** The tokens section, and the row of one token in it. */
  tokens: (page: Page): Locator => section(page, 'Tokens'),
  tokenRow: (page: Page, tokenId: string): Locator => section(page, 'Tokens').getByRole('row').filter({ hasText: tokenId }),

  /** The payments section, and the row of one payment in it (by its transaction reference). */
  payments: (page: Page): Locator => section(page, 'Payments'),
  paymentRow: (page: Page, reference: string): Locator => section(page, 'Payments').getByRole('row').filter({ hasText: reference }),
  /** Shows only the payments of a transaction reference (the section's search), or all again with ''. */
  async findPayments(page: Page, reference: string): Promise<void> {
    const payments = section(page, 'Payments');
    if (reference === '') {
      await payments.getByRole('button', { name: 'Show all payments' }).click();
      return;
    }
    await payments.getByRole('searchbox', { name: 'Transaction reference' }).fill(reference);
    await payments.getByRole('button', { name: 'Find', exact: true }).click();
  },

  /** The data rows of a table section (`Tokens`, `Payments`), top to bottom: the header row left out. */
  dataRows: (page: Page, heading: string): Locator => section(page, heading).getByRole('row').filter({ has: page.getByRole('cell') }),

  /** What the page shows where a section's data has not arrived yet. */
  loading: (page: Page, heading: string): Locator => (heading === '' ? page.getByRole('main') : section(page, heading)).getByText('Loading…', { exact: true }),

  /** The live journal, and its entries showing `text` (e.g. a status, a rule). */
  journal: (page: Page): Locator => section(page, 'Journal'),
  journalEntries: (page: Page): Locator => section(page, 'Journal').getByRole('list', { name: 'Journal entries' }).getByRole('listitem'),
  journalEntry: (page: Page, text: string | RegExp): Locator => section(page, 'Journal').getByRole('list', { name: 'Journal entries' }).getByRole('listitem').filter({ hasText: text }),

  /** The scenarios section; a shipped scenario loads with one click. */
  scenarios: (page: Page): Locator => section(page, 'Scenarios'),
  async loadShippedScenario(page: Page, name: string): Promise<void> {
    await section(page, 'Scenarios').getByRole('button', { name: `Load scenario ${name}`, exact: true }).click();
  },

  /** The state section: export downloads a file (its path is returned), import uploads one. */
  state: (page: Page): Locator => section(page, 'State'),
  async exportState(page: Page): Promise<string> {
    const state = section(page, 'State');
    const [download] = await Promise.all([page.waitForEvent('download'), state.getByRole('button', { name: 'Export state' }).click()]);
    return download.path();
  },
  async importState(page: Page, file: string): Promise<void> {
    const state = section(page, 'State');
    await state.getByLabel('State file').setInputFiles(file);
    await state.getByRole('button', { name: 'Import state' }).click();
  },

  /** The webhook deliveries section. */
  webhooks: (page: Page): Locator => section(page, 'Webhook deliveries'),

  /** The status line where the page says what an action did. */
  message: (page: Page): Locator => page.getByRole('status').first(),

  /** The admin-token form shown on a 401. */
  tokenField: (page: Page): Locator => page.getByLabel('Admin token', { exact: true }),
  async signIn(page: Page, token: string): Promise<void> {
    await page.getByLabel('Admin token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  },
};

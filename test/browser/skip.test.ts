/** When the dashboard's browser suites skip (test/support/browser.ts): only without Chromium, never under CI=true. */
import { describe, expect, it } from '@jest/globals';
import { skipLine } from '../support/browser.js';

describe('skipLine(file, reason, CI)', () => {
  it('skips without Chromium outside CI, with one line naming the suite and the reason', () => {
    expect(skipLine('test/browser/dashboard.browser.test.ts', 'Chromium not found at /usr/bin/chromium', undefined)).toBe(
      'SKIPPED the dashboard browser tests (test/browser/dashboard.browser.test.ts): Chromium not found at /usr/bin/chromium; ' +
        'install it (apt-get install chromium) or set CHROMIUM_PATH. CI (CI=true) never skips them.',
    );
    expect(skipLine('a.browser.test.ts', 'no', 'false')).toMatch(/^SKIPPED .*\(a\.browser\.test\.ts\): no;/);
  });

  it('never skips under CI=true, nor when Chromium is there', () => {
    expect(skipLine('a.browser.test.ts', 'Chromium not found at /usr/bin/chromium', 'true')).toBeUndefined();
    expect(skipLine('a.browser.test.ts', undefined, undefined)).toBeUndefined();
    expect(skipLine('a.browser.test.ts', undefined, 'true')).toBeUndefined();
  });
});

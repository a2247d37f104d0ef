/** The configured test timeout (30 s, jest.config.js) is the one jest applies, not its default of 5 s. */
import { expect, it } from '@jest/globals';

it('lets a test run past jest’s default 5 s', async () => {
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 5_500));
  expect(Date.now() - started).toBeGreaterThanOrEqual(5_400);
});

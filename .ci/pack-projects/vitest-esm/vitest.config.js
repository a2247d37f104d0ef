// An ESM project with Vitest: the test files run in parallel workers.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { globalSetup: ['./global-setup.js'], include: ['test/**/*.test.ts'], maxWorkers: 2 },
});

/**
 * The dashboard's types (src/ui, decision 0035) are checked against the published declarations it reads the
 * /_sim shapes from (dist/index.d.ts, after `npm run build`): a field the server renames or drops, and the page
 * still reads, fails here rather than in a browser.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the dashboard’s TypeScript', () => {
  it('takes the shapes of /_sim from the published declarations, not a copy of its own', () => {
    const api = readFileSync(join(root, 'src', 'ui', 'api.ts'), 'utf8');
    expect(api).toMatch(/^import type \{ ClockState, ControlPayment, ControlTenant, ControlToken, ErrorBody, JournalEntry, WebhookDelivery \} from '\.\.\/\.\.\/dist\/index\.js';$/m);
    expect(api).not.toMatch(/interface (JournalEntry|Delivery|PaymentItem|Clock|Tenant|TokenItem)\b/);
  });

  it('compiles against them (tsc -p src/ui/tsconfig.json)', () => {
    expect(existsSync(join(root, 'dist', 'index.d.ts'))).toBe(true);
    const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'src', 'ui', 'tsconfig.json'), '--noEmit'], { encoding: 'utf8', timeout: 120_000 });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 150_000);
});

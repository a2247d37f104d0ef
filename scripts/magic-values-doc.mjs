// `node scripts/magic-values-doc.mjs` (after `npm run build`): writes docs/magic-values.md from the catalogue that
// GET /_sim/magic-values answers for a simulator with the default fixtures and scenarios/amount-refusals.yaml
// (decision 0057). test/docs/magic-values-page.test.ts checks that the page is what this would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSimulator } from '../dist/index.js';
import { PAGE_SCENARIO, magicValuesPage } from '../dist/http/admin/magic-values.js';

const sim = createSimulator({ log: 'silent', scenarios: [fileURLToPath(new URL(`../${PAGE_SCENARIO}`, import.meta.url))] });
writeFileSync(new URL('../docs/magic-values.md', import.meta.url), magicValuesPage(sim.magicValues()));

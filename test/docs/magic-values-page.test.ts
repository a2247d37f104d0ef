/**
 * docs/magic-values.md is generated from the catalogue GET /_sim/magic-values answers (decision 0057): it must be
 * exactly what `node scripts/magic-values-doc.mjs` writes, the catalogue of a simulator with the default fixtures
 * and the page's scenario, so a change to the tables the simulator runs on cannot leave the page behind.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSimulator } from '../../src/index.js';
import { magicValuesPage } from '../../src/http/admin/magic-values.js';

const page = readFileSync(new URL('../../docs/magic-values.md', import.meta.url), 'utf8');
const script = readFileSync(new URL('../../scripts/magic-values-doc.mjs', import.meta.url), 'utf8');

describe('docs/magic-values.md', () => {
  it('is what scripts/magic-values-doc.mjs writes (run it after a build when this fails)', () => {
    const sim = createSimulator({ log: 'silent', scenarios: [fileURLToPath(new URL('../../scenarios/amount-refusals.yaml', import.meta.url))] });
    expect(page).toBe(magicValuesPage(sim.magicValues()));
  });

  it('is written by a script that loads the same scenario and renders the same page', () => {
    expect(script).toContain("writeFileSync(new URL('../docs/magic-values.md', import.meta.url), magicValuesPage(sim.magicValues()))");
    expect(script).toContain('PAGE_SCENARIO');
    expect(page).toContain('[`scenarios/amount-refusals.yaml`](../scenarios/amount-refusals.yaml)');
  });

  it('shows what the sandbox does with a few values, as this test knows them', () => {
    for (const line of [
      '| `REFUSED51` | `refused` | refused, refusalCode 51 LIMIT EXCEEDED |',
      '| `ERROR` | `error` | the sale answers 500 internalErrorOccurred and makes no payment |',
      '| `CCCC` | riskFactors not_matched address |',
      '| no billing address | riskFactors not_supplied address, not_supplied postcode |',
      '| `3000` to `3999` | `sale` | `amount-3000s` | refused, refusalCode 85 REJECTED BY CARD ISSUER |',
      '| `444433` | `VISA` | `visa` | `GB` | `credit` |',
      '| any other | `UNKNOWN` | `unknown` | `US` | `unknown` |',
    ]) {
      expect(page).toContain(line);
    }
  });
});

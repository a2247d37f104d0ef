/**
 * The walkthrough of docs/did-it-happen.md (issue 26 item 7), run as a reader runs it:
 * scripts/walkthrough-did-it-happen.sh starts the CLI and a webhook receiver on free ports, a sale's answer is
 * lost after the work, the retry gets transactionHasAlreadyBeenProcessed, a payment query by reference finds the
 * payment, and the webhooks arrive duplicated and reordered. Each step's output must be what the page shows and
 * each step's commands the page's; only the two ports may differ. Needs bash, curl and jq, as the script does.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fencedBlocks } from '../support/markdown.js';
import { missingTools, pageSections, root, runWalkthrough, scriptSteps } from '../support/walkthrough.js';

const SCRIPT = 'scripts/walkthrough-did-it-happen.sh';
const PAGE = 'docs/did-it-happen.md';
const tools = missingTools();
// Without the script's tools the suite is skipped, saying why; CI (CI=true) never skips it.
const skip = tools.length > 0 && process.env.CI !== 'true';
if (skip) console.warn(`SKIPPED the did-it-happen walkthrough (test/examples/did-it-happen.process.test.ts): it needs ${tools.join(', ')}, not installed here`);

(skip ? describe.skip : describe)('the did-it-happen walkthrough, run', () => {
  let run: SpawnSyncReturns<string>;
  let outputs = new Map<string, string>();
  beforeAll(() => {
    if (tools.length > 0) throw new Error(`the walkthrough needs ${tools.join(', ')}`);
    ({ run, outputs } = runWalkthrough(SCRIPT));
  }, 90_000);

  const shown = pageSections(PAGE);
  const steps = [...scriptSteps(SCRIPT).keys()];

  it('runs to the end and stops both processes', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.signal).toBeNull();
  });

  it('tells what issue 26 asks: a lost answer, a retry refused as a duplicate, a query that finds the payment, duplicated and reordered webhooks', () => {
    expect(steps).toEqual([
      '0. A receiver and the simulator',
      '1. The sale times out',
      '2. Retry it, with the same reference',
      '3. Ask by reference what happened',
      '4. What the journal says happened, and what the client got',
      '5. A day on the clock: the settlement',
      '6. What the receiver got',
      '7. Read them as a careful receiver does',
    ]);
    expect(outputs.get('1. The sale times out')).toBe('HTTP 000\nno answer (curl exit code 28)');
    expect(outputs.get('2. Retry it, with the same reference')).toContain('"errorName":"transactionHasAlreadyBeenProcessed"');
    expect(outputs.get('3. Ask by reference what happened')).toContain('"transactionReference": "order-77"');
    expect(outputs.get('4. What the journal says happened, and what the client got')).toContain('"lostAnswer":{"as":"noResponse","status":201,"outcome":"sentForSettlement"}');
    const received = (outputs.get('6. What the receiver got') ?? '').split('\n').slice(1).map((line) => JSON.parse(line) as { eventId: string; type: string });
    expect(received.map((r) => r.type)).toEqual(['settled', 'settled', 'sentForSettlement']);
    expect(received[0]?.eventId).toBe(received[1]?.eventId);
    expect(outputs.get('7. Read them as a careful receiver does')?.split('\n')[0]).toBe('["sentForSettlement","settled"]');
  });

  it('shows the scenario file the script writes', () => {
    const yaml = fencedBlocks(readFileSync(join(root, PAGE), 'utf8')).find((b) => b.lang === 'yaml')?.body.trim();
    expect(readFileSync(join(root, SCRIPT), 'utf8')).toContain(`<<'YAML'\n${yaml}\nYAML`);
  });

  it.each(steps.filter((s) => !s.startsWith('0.')))('"%s": the page shows the script\'s commands and their real output', (step) => {
    const section = shown.get(step);
    expect(section).toBeDefined();
    expect(section?.commands).toBe(scriptSteps(SCRIPT).get(step));
    expect(outputs.get(step)).toBe(section?.shown);
  });

  it('"0. A receiver and the simulator": the page shows both listening lines', () => {
    expect(outputs.get('0. A receiver and the simulator')).toBe(shown.get('0. A receiver and the simulator')?.shown);
  });
});

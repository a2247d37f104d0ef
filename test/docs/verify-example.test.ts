/**
 * docs/verify.md's worked example, run end to end: a token-sim with the page's scenario (refuse every sale), the
 * recorder in front of it (`token-sim record`), a session through the recorder, and `token-sim verify` against the
 * defaults, whose output is compared with what the page shows; and against the same scenario, no difference.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../../src/simulator/server.js';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';
import { blocksOf, examplesRunBy, readPage } from '../support/doc-examples.js';
import { runSession } from '../support/recorded-session.js';
import { matchesShown } from '../support/shown-output.js';

const TEST = 'test/docs/verify-example.test.ts';
const PAGE = 'docs/verify.md';

describe('docs/verify.md, the worked example', () => {
  it('prints what the page shows, and no difference against the same scenario', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-sim-verify-doc-'));
    const yaml = blocksOf(readPage(PAGE)).find((b) => b.lang === 'yaml' && b.body.includes('refuse-every-sale'));
    const scenario = join(dir, 'refuse-every-sale.yaml');
    writeFileSync(scenario, yaml?.body ?? '');
    const upstream = await startSimulator({ port: 0, scenarios: [scenario] }, { writeErr: () => undefined });
    const har = join(dir, 'session.har');
    try {
      const recorder = runCli(['record', '--upstream', upstream.url, '--port', '0', '--out', har]);
      await recorder.returned;
      const url = /listening on (\S+)$/.exec(recorder.out[0] ?? '')?.[1] as string;
      await runSession(url, { user: 'merchant', password: 'secret' }, [{ cardNumber: '4444333322221111', cvc: '123', cardHolderName: 'Sherlock Holmes' }]);
      expect(await recorder.stop()).toBe(0);
    } finally {
      await upstream.close();
    }
    const verify = runCli(['verify', har]);
    expect(await exitCodeOf(verify)).toBe(1);
    const [example] = examplesRunBy(TEST, PAGE);
    const printed = verify.out.join('\n');
    if (!matchesShown(printed, example?.output.body ?? '')) expect(printed).toBe(example?.output.body);
    const same = runCli(['verify', har, '--', '--scenario', scenario]);
    expect(await exitCodeOf(same)).toBe(0);
    expect(same.out).toEqual(['no difference in 10 answers']);
  });
});

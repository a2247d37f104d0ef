/** --scenario, --watch and `token-sim validate`, through the CLI in-process (main with a fake io). */
import { describe, expect, it } from '@jest/globals';
import { exitCodeOf, runCli, scenarioFile, startCli, TOKEN_TYPE, tempFile } from '../support/cli-in-process.js';

const headers = { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE };
const body = JSON.stringify({
  paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 1, year: 2031 } },
  merchant: { entity: 'default' },
});

describe('scenarios on the command line', () => {
  it('--scenario loads files at start (repeatable)', async () => {
    const { run, url } = await startCli(['--port', '0', '--log', 'silent', '--scenario', scenarioFile('live-profile.yaml'), '--scenario', scenarioFile('outage.yaml')]);
    try {
      const res = await fetch(`${url}/tokens`, { method: 'POST', headers, body });
      expect(res.status).toBe(503);
      const loaded = (await (await fetch(`${url}/_sim/scenarios`)).json()) as { scenarios: { name: string }[] };
      expect(loaded.scenarios.map((s) => s.name)).toEqual(['live-profile', 'outage']);
    } finally {
      await run.stop();
    }
  });

  it('refuses an invalid --scenario with every problem on one line and exit code 2', async () => {
    const file = tempFile('bad.yaml', 'rules:\n  - then: {}\n');
    const r = runCli(['--scenario', file]);
    expect(await exitCodeOf(r)).toBe(2);
    expect(r.stderr().trim().split('\n')).toHaveLength(1);
    expect(r.stderr()).toContain('$.name');
    expect(r.stderr()).toContain('$.rules[0].then');
  });
});

describe('token-sim validate', () => {
  it('ends with code 0 (no exit call) and says ok for the shipped scenarios and the default fixtures', async () => {
    const files = ['outage.yaml', 'flaky-sales.yaml', 'amount-refusals.yaml', 'preloaded-conflict.yaml'].map(scenarioFile);
    const r = runCli(['validate', ...files, new URL('../../fixtures/default.json', import.meta.url).pathname]);
    expect(await exitCodeOf(r)).toBe(0);
    expect(r.exitCodes).toEqual([]);
    expect(r.stdout().trim().split('\n')).toHaveLength(5);
    expect(r.stdout()).not.toMatch(/\$\./);
  });

  it('prints every problem with its JSONPath and exits 1', async () => {
    const scenario = tempFile('bad.json', JSON.stringify({ name: '', rules: [{ when: { nth: 0 }, then: { delayMs: -1 } }] }));
    const fixtures = tempFile('fixtures.json', JSON.stringify({ credentials: [{ username: 'a' }], entities: {}, bins: [] }));
    const r = runCli(['validate', scenario, fixtures, scenarioFile('outage.yaml')]);
    expect(await exitCodeOf(r)).toBe(1);
    const out = r.stdout();
    expect(out).toContain(`${scenario}: $.name: `);
    expect(out).toContain(`${scenario}: $.rules[0].when.nth: `);
    expect(out).toContain(`${scenario}: $.rules[0].then.delayMs: `);
    expect(out).toContain(`${fixtures}: $.credentials[0].password: `);
    expect(out).toContain(`${fixtures}: $.credentials[0].entities: `);
    expect(out).toContain(`${scenarioFile('outage.yaml')}: ok`);
  });

  it('reports an unreadable file and a YAML syntax error, and exits 1', async () => {
    const broken = tempFile('broken.yaml', 'name: [oops\n');
    const r = runCli(['validate', '/nonexistent.yaml', broken]);
    expect(await exitCodeOf(r)).toBe(1);
    expect(r.stdout()).toContain('/nonexistent.yaml: $: cannot read the file (ENOENT)');
    expect(r.stdout()).toMatch(/broken\.yaml: \$: the document is not valid YAML at line \d+/);
  });
});

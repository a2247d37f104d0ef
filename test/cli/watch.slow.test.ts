/** --watch: the CLI in-process reloading scenario files on real file-system events (real time). */
import { describe, expect, it } from '@jest/globals';
import { renameSync, writeFileSync } from 'node:fs';
import { eventually, startCli, tempFile } from '../support/cli-in-process.js';

describe('--watch', () => {
  it('--watch reloads a changed file and keeps the previous set when the change is invalid, then exits 0 when stopped', async () => {
    const file = tempFile('live.yaml', 'name: first\n');
    const { run, url } = await startCli(['--port', '0', '--log', 'silent', '--scenario', file, '--watch']);
    const names = async () => ((await (await fetch(`${url}/_sim/scenarios`)).json()) as { scenarios: { name: string }[] }).scenarios.map((s) => s.name);
    let code: number;
    try {
      expect(await names()).toEqual(['first']);
      writeFileSync(file, 'name: second\n');
      await eventually(() => run.stderr().includes('reloaded'), 5000);
      expect(await names()).toEqual(['second']);
      // An editor that saves by writing a new file and renaming it over the old one, twice.
      for (const name of ['third', 'fourth']) {
        const tmp = `${file}.tmp`;
        writeFileSync(tmp, `name: ${name}\n`);
        renameSync(tmp, file);
        await eventually(() => run.stderr().split('reloaded').length - 1 >= (name === 'third' ? 2 : 3), 5000);
        expect(await names()).toEqual([name]);
      }
      writeFileSync(file, 'rules: nope\n');
      await eventually(() => run.stderr().includes('kept the previous scenarios'), 5000);
      expect(run.stderr()).toContain('$.name');
      expect(await names()).toEqual(['fourth']);
    } finally {
      code = await run.stop();
    }
    expect(code).toBe(0);
  });
});

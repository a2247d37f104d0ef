/** --watch's poller (cli/watch.ts) against a simulator double that records what it was given (real files, real time). */
import { describe, expect, it } from '@jest/globals';
import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchScenarioFiles } from '../../src/cli/watch.js';
import type { Simulator } from '../../src/simulator/facade.js';

async function until(holds: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!holds()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('watchScenarioFiles', () => {
  it('sees a change made at once after it starts (the first look is taken before it returns)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    const file = join(dir, 'live.yaml');
    writeFileSync(file, 'name: first\n');
    const loads: string[][] = [];
    const sim = { loadScenarios: (...files: string[]) => loads.push(files), scenarios: () => [{}] } as unknown as Simulator;
    const lines: string[] = [];
    // libuv's thread pool kept busy (as a loaded test run keeps it), so that a first look taken there comes late.
    const busy = Array.from({ length: 8 }, () => new Promise((r) => pbkdf2('x', 'y', 300_000, 32, 'sha256', r)));
    const stop = watchScenarioFiles(sim, [file], (line) => lines.push(line));
    try {
      // In the same tick: fs.watchFile took its first look after this, and never reported the change.
      writeFileSync(file, 'name: second\n');
      await Promise.all(busy);
      await until(() => loads.length === 1);
      expect(loads).toEqual([[file]]);
      expect(lines).toEqual([`token-sim: reloaded 1 scenario(s) from ${file}`]);
      // A file removed is a change too: the reload's refusal keeps the previous set.
      rmSync(file);
      await until(() => loads.length === 2);
    } finally {
      stop();
      rmSync(dir, { recursive: true, force: true });
    }
    // Stopped: nothing more is reloaded.
    const seen = loads.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(loads.length).toBe(seen);
  });
});

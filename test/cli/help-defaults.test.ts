/**
 * Every default that `token-sim --help` names is the one the simulator applies: giving an option its shown
 * default changes nothing in the resolved configuration.
 */
import { describe, expect, it } from '@jest/globals';
import { exitCodeOf, runCli } from '../support/cli-in-process.js';
import { resolveConfig } from '../../src/config/options.js';

/** `--help` with commander's line wrapping undone: `[flag, default]` for each option naming a default. */
async function shownDefaults(): Promise<[string, string][]> {
  const r = runCli(['--help']);
  expect(await exitCodeOf(r)).toBe(0);
  const text = r.stdout().replace(/\n\s+(?=[^\s-])/g, ' ');
  const found = [...text.matchAll(/^\s*(?:-\w, )?--([\w-]+)[^\n]*?(?:\(|, )default: ([^,)]+)/gm)];
  // Two defaults are words, not values: --now's real time, --base-url's Host header.
  return found.map((m): [string, string] => [m[1] ?? '', (m[2] ?? '').replace(/^"(.*)"$/, '$1')]).filter(([flag]) => flag !== 'now' && flag !== 'base-url');
}

const camel = (flag: string): string => flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const NUMBERS = new Set(['port', 'journalSize', 'journalTotal']);

describe('the defaults --help shows', () => {
  it('names the ones this test knows of, each once', async () => {
    const flags = (await shownDefaults()).map(([flag]) => flag);
    expect(flags.sort()).toEqual(
      ['drain-timeout', 'fixtures', 'host', 'journal-size', 'journal-total', 'log', 'port', 'profile', 'settlement-delay', 'state-interval', 'state-limit', 'store', 'store-prefix', 'tls-dir', 'vendor'].sort(),
    );
  });

  it.each([
    ['drain-timeout', 'PT65S'],
    ['journal-total', '10000'],
    ['settlement-delay', 'P1D'],
    ['state-interval', 'PT10S'],
    ['state-limit', '256MiB'],
    ['store-prefix', 'token-sim:'],
    ['port', '8080'],
  ])('shows --%s as %s', async (flag, shown) => {
    expect(new Map(await shownDefaults()).get(flag)).toBe(shown);
  });

  it('are what the simulator applies when the option is not given', async () => {
    // The CLI's log format is its own (the library's is `silent`); --tls-dir is compared with --tls on.
    const checked = (await shownDefaults()).filter(([flag]) => flag !== 'log');
    expect(checked.length).toBeGreaterThan(10);
    for (const [flag, shown] of checked) {
      const key = camel(flag);
      const value = NUMBERS.has(key) ? Number(shown) : shown;
      const base = flag === 'tls-dir' ? { tls: true } : {};
      expect({ flag, config: resolveConfig({ ...base, [key]: value }) }).toEqual({ flag, config: resolveConfig(base) });
    }
  });
});

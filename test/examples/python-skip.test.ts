/** When the Python example's suite skips (test/support/python.ts): only without python3, never under CI=true. */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { pythonMissing, pythonSkipLine } from '../support/python.js';

describe('pythonSkipLine(file, reason, CI)', () => {
  it('skips without python3 outside CI, with one line naming the suite, the reason and the install', () => {
    expect(pythonSkipLine('test/examples/python.process.test.ts', 'python3 not found on PATH', undefined)).toBe(
      'SKIPPED the Python example (test/examples/python.process.test.ts): python3 not found on PATH; ' +
        'install it (apt-get install python3) or set PYTHON. CI (CI=true) never skips it.',
    );
    expect(pythonSkipLine('a.process.test.ts', 'no', 'false')).toMatch(/^SKIPPED the Python example \(a\.process\.test\.ts\): no;/);
  });

  it('never skips under CI=true, nor when python3 is there', () => {
    expect(pythonSkipLine('a.process.test.ts', 'python3 not found on PATH', 'true')).toBeUndefined();
    expect(pythonSkipLine('a.process.test.ts', undefined, undefined)).toBeUndefined();
    expect(pythonSkipLine('a.process.test.ts', undefined, 'true')).toBeUndefined();
  });
});

describe('pythonMissing(command)', () => {
  it('says so when the executable is not there, by path or on PATH', () => {
    expect(pythonMissing('/nonexistent/python3')).toBe('python3 not found at /nonexistent/python3');
    expect(pythonMissing('no-such-python-here')).toBe('no-such-python-here not found on PATH');
  });

  it('says so when `--version` fails or is not a Python 3', () => {
    expect(pythonMissing('false')).toMatch(/^false --version failed \(/);
    expect(pythonMissing('true')).toMatch(/^true --version did not say "Python 3\.…"/);
  });

  // Only where python3 is installed (CI installs it): elsewhere there is nothing to find.
  const installed = spawnSync('python3', ['--version']).status === 0;
  (installed ? it : it.skip)('finds nothing missing when python3 runs', () => {
    expect(pythonMissing('python3')).toBeUndefined();
  });
});

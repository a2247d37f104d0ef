// Reads a Jest or Vitest JSON report (`--json` / `--reporter=json`): every one of the expected test files passed,
// and they ran in more than one worker (each file's first test names its worker: shared/isolation.ts).
import { readFileSync } from 'node:fs';

const [report, expected] = [process.argv[2], Number(process.argv[3])];
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const failed = testResults.filter((r) => r.status !== 'passed');
if (testResults.length !== expected || failed.length > 0) {
  const names = failed.map((r) => `${r.name.replace(/.*\//, '')}: ${r.status}`).join(', ');
  console.error(`expected ${expected} passing test files, got ${testResults.length} (${names || 'none failed'})`);
  process.exit(1);
}
const workers = new Set(
  testResults.flatMap((r) => r.assertionResults.map((a) => /\(worker (\w+)\)$/.exec(a.title)?.[1]).filter((w) => w !== undefined)),
);
if (workers.size < 2 || workers.has('none')) {
  console.error(`the test files did not run in parallel workers: workers ${[...workers].join(', ') || 'unknown'}`);
  process.exit(1);
}
console.log(`${testResults.length} test files passed, in ${workers.size} parallel workers (${[...workers].sort().join(', ')})`);

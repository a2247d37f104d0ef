// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function, or by file/package with --files.
//   node bench/profile-summary.mjs <file.cpuprofile> [--files] [rows]
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const byFile = rest.includes('--files');
const rows = Number(rest.find((a) => /^\d+$/.test(a)) ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));

const totals = new Map();
let busy = 0;
for (const node of profile.nodes) {
  const t = self.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)') continue;
  busy += t;
  const where = url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist|src|bench)\//, '$1/');
  const key = byFile ? (where.startsWith('node:') ? 'node:*' : where.split('/').slice(0, where.startsWith('dist') ? 3 : 1).join('/') || functionName) : `${functionName || '(anonymous)'} ${where}:${lineNumber}`;
  totals.set(key, (totals.get(key) ?? 0) + t);
}
for (const [key, t] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  process.stdout.write(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}\n`);
}

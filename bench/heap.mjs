// Retained heap per stored token, created through the library: node --expose-gc bench/heap.mjs <count>
// The composition root, not the public entry: the public simulator has no vault (it is an internal).
import { createSimulator } from '../dist/simulator/compose.js';
import { luhnComplete } from './cards.mjs';

const count = Number(process.argv[2] ?? 100_000);
const sim = createSimulator({ seed: 'heap', now: '2030-01-01T00:00:00Z', frozen: true });
const cards = Array.from({ length: count }, (_, i) => luhnComplete(`4${String(i + 1).padStart(14, '0')}`));
const settle = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
const before = settle();
for (const number of cards) {
  sim.vault.create('merchant', { entity: 'default', card: { number, holderName: 'Bench Mark', expiryDate: { month: 12, year: 2035 } } });
}
const after = settle();
if (sim.exportState().tokens.length !== count) throw new Error('tokens were not stored');
process.stdout.write(`${JSON.stringify({ count, bytesPerToken: (after - before) / count })}\n`);

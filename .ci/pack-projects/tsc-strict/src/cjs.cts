// A CommonJS module (node16 resolution: the `require` condition and CommonJS-format declarations), run by node.
import tokenSim = require('token-sim');
import type { Scenario } from 'token-sim';
import jest = require('token-sim/jest');

async function main(): Promise<void> {
  const outage: Scenario = { name: 'outage', rules: [{ then: { delayMs: 1 } }] };
  const sim = await tokenSim.startSimulator({ port: 0, scenarios: [outage] });
  const ok = sim.scenarios().length === 1 && typeof jest.globalSetup === 'function';
  await sim.close();
  if (!ok) throw new Error('failed: the CommonJS build');
}
void main();

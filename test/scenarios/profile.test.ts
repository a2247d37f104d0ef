/** A scenario's profile applies to tokens created while it is active; tokens created before keep their own. */
import { describe, expect, it } from '@jest/globals';
import { client, createBody, createToken, scenarioFile, testSimulator } from '../support/sim.js';

describe('a profile loaded by a scenario', () => {
  it('does not change the extension of a Try token created before it loaded', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api);
    sim.loadScenarios(scenarioFile('live-profile.yaml'));
    // Past the half-life of 7 days: the next use extends by the token's own 7 days, not by Live's 4 years.
    sim.clock.advance('P4D');
    const res = await api.get(links['tokens:token']!);
    expect(res.body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
  });

  it('gives tokens created while it is active its lifetime and extension', async () => {
    const sim = testSimulator();
    sim.loadScenarios(scenarioFile('live-profile.yaml'));
    const api = client(sim);
    const links = await createToken(api, createBody({ cardNumber: '4111111111111111' }));
    sim.clock.advance('P3Y');
    expect((await api.get(links['tokens:token']!)).body.tokenExpiryDateTime).toBe('2038-01-01T00:00:00Z');
  });

  it('keeps a token’s own extension through a state export and import', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api);
    sim.loadScenarios(scenarioFile('live-profile.yaml'));
    const snapshot = sim.exportState();
    expect(snapshot.tokens[0]?.extension).toBe('P7D');
    const copy = testSimulator();
    copy.loadScenarios(scenarioFile('live-profile.yaml'));
    copy.importState(snapshot);
    copy.clock.advance('P4D');
    expect((await client(copy).get(links['tokens:token']!)).body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
  });
});

import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SimulatorError } from '../../src/index.js';
import { sale, saleBody } from '../support/sale.js';
import { client, createBody, scenarioFile, testSimulator, handlerOf } from '../support/sim.js';

const OUTAGE_JSON = { name: 'down', rules: [{ id: 'down', then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };
const OUTAGE_YAML = 'name: down\nrules:\n  - id: down\n    then:\n      error: {status: 503, errorName: serviceUnavailable}\n';

describe('/_sim/scenarios', () => {
  it('loads a JSON scenario with PUT, shows it with GET and clears it with DELETE', async () => {
    const sim = testSimulator();
    const put = await request(handlerOf(sim)).put('/_sim/scenarios').send(OUTAGE_JSON);
    expect(put.status).toBe(200);
    expect(put.body.scenarios.map((s: { name: string }) => s.name)).toEqual(['down']);
    expect((await request(handlerOf(sim)).get('/_sim/scenarios')).body.scenarios).toHaveLength(1);
    expect((await client(sim).create(createBody())).status).toBe(503);
    expect((await request(handlerOf(sim)).delete('/_sim/scenarios')).status).toBe(204);
    expect((await client(sim).create(createBody())).status).toBe(201);
  });

  it.each(['application/yaml', 'text/yaml', 'application/x-yaml'])('loads a YAML body sent as %s', async (type) => {
    const sim = testSimulator();
    expect((await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', type).send(OUTAGE_YAML)).status).toBe(200);
    expect((await client(sim).create(createBody())).status).toBe(503);
  });

  it('takes a list of scenarios, rules applying in order across them', async () => {
    const sim = testSimulator();
    const slowSales = { name: 'first', rules: [{ id: 'refuse-sales', when: { operation: 'sale' }, then: { outcome: { outcome: 'refused' } } }] };
    await request(handlerOf(sim)).put('/_sim/scenarios').send([slowSales, OUTAGE_JSON]);
    expect((await sale(sim, saleBody())).body.outcome).toBe('refused');
    expect((await client(sim).create(createBody())).status).toBe(503);
  });

  it('refuses an invalid set whole, listing every problem, and keeps the previous set', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).put('/_sim/scenarios').send(OUTAGE_JSON);
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').send([{ name: 'ok', rules: [] }, { rules: [{ then: { fault: 'boom' } }] }]);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors.map((v: { jsonPath: string }) => v.jsonPath)).toEqual(['$[1].name', '$[1].rules[0].then.fault']);
    expect((await request(handlerOf(sim)).get('/_sim/scenarios')).body.scenarios.map((s: { name: string }) => s.name)).toEqual(['down']);
  });

  it('answers a YAML syntax error with its line', async () => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/scenarios').set('Content-Type', 'application/yaml').send('name: [unclosed\n');
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0].message).toMatch(/line \d+/);
  });

  it('refuses a preloaded token the vault would refuse, naming it, and keeps the previous set', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).put('/_sim/scenarios').send(OUTAGE_JSON);
    const past = { name: 'past', rules: [{ then: { delayMs: 1 } }], profile: 'live', tokens: [{ ...createBody(), tokenExpiryDateTime: '2020-01-01T00:00:00Z' }] };
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').send(past);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors.map((v: { jsonPath: string }) => v.jsonPath)).toEqual(['$.tokens[0].tokenExpiryDateTime']);
    expect((await request(handlerOf(sim)).get('/_sim/scenarios')).body.scenarios.map((s: { name: string }) => s.name)).toEqual(['down']);
    await request(handlerOf(sim)).delete('/_sim/scenarios');
    expect((await client(sim).create(createBody())).body.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
  });

  it.each([
    ['a wrapper', (s: object[]) => ({ scenarios: s }), '$.scenarios[1].tokens[0]'],
    ['a list', (s: object[]) => s, '$[1].tokens[0]'],
    ['a one-element list', (s: object[]) => [s[1]], '$[0].tokens[0]'],
  ])('names a refused preloaded token inside %s by its full JSONPath', async (_name, wrap, jsonPath) => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').send(wrap([{ name: 'a' }, { name: 'b', tokens: [{ ...createBody(), username: 'nobody' }] }]));
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0].jsonPath).toBe(jsonPath);
  });

  it('refuses preloaded tokens for an unknown credential and changes nothing', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').send({ name: 'x', tokens: [{ ...createBody(), username: 'ghost' }] });
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0].jsonPath).toBe('$.tokens[0]');
    expect((await request(handlerOf(sim)).get('/_sim/scenarios')).body.scenarios).toEqual([]);
  });

  it('preloads a scenario’s tokens at load time and again after a reset', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).put('/_sim/scenarios').send({ name: 'on-file', tokens: [{ ...createBody(), tokenId: '9900000000000000777' }] });
    expect((await client(sim).create(createBody())).body.tokenId).toBe('9900000000000000777');
    await request(handlerOf(sim)).post('/_sim/reset');
    expect((await client(sim).create(createBody({ cardHolderName: 'X' }))).status).toBe(409);
  });

  it('restarts rule counters on reset, per tenant', async () => {
    const sim = testSimulator({ scenarios: [scenarioFile('first-attempt-refusal.yaml')] });
    expect((await sale(sim, saleBody())).body.outcome).toBe('refused');
    expect((await sale(sim, saleBody())).body.outcome).toBe('sentForSettlement');
    await request(handlerOf(sim)).post('/_sim/reset?tenant=merchant');
    expect((await sale(sim, saleBody())).body.outcome).toBe('refused');
  });

  it('carries rule counters in state snapshots', async () => {
    const sim = testSimulator({ scenarios: [scenarioFile('first-attempt-refusal.yaml')] });
    const fresh = sim.exportState();
    await sale(sim, saleBody());
    const used = sim.exportState();
    expect(used.counters.scenarios).toEqual({ 'first-sale-refused': { merchant: { matches: 1, applications: 1 } } });
    sim.importState(fresh);
    expect((await sale(sim, saleBody())).body.outcome).toBe('refused');
    sim.importState(used);
    expect((await sale(sim, saleBody())).body.outcome).toBe('sentForSettlement');
  });
});

describe('sim.loadScenarios()', () => {
  it('loads files and objects, replacing the active set', async () => {
    const sim = testSimulator();
    sim.loadScenarios(scenarioFile('live-profile.yaml'), OUTAGE_JSON);
    expect(sim.scenarios().map((s) => s.name)).toEqual(['live-profile', 'down']);
    expect((await client(sim).create(createBody())).status).toBe(503);
    sim.loadScenarios(scenarioFile('live-profile.yaml'));
    expect((await client(sim).create(createBody())).body.tokenExpiryDateTime).toBe('2034-01-01T00:00:00Z');
    sim.loadScenarios();
    expect(sim.scenarios()).toEqual([]);
    expect((await client(sim).create(createBody({ cardNumber: '5555555555554444' }))).body.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
  });

  it('throws a SimulatorError for an invalid object and a file error naming the path for a bad file', () => {
    const sim = testSimulator();
    expect(() => sim.loadScenarios({ rules: [] })).toThrow(SimulatorError);
    expect(() => sim.loadScenarios('/nonexistent/scenario.yaml')).toThrow(/scenario\.yaml/);
  });
});

describe('a large invalid scenario document (contract 4.1)', () => {
  it('answers a 1 MiB document of wrong rules with the first 100 problems, in rule order, and loads nothing', async () => {
    const sim = testSimulator();
    const rule = (i: number) => ({ id: `r${i}`, when: { operation: 'sael' }, then: { outcome: 'refused', refusalCode: 51, bogus: i } });
    const body = JSON.stringify({ name: 'big', rules: Array.from({ length: 10_000 }, (_, i) => rule(i)) });
    expect(body.length).toBeGreaterThan(900_000);
    expect(body.length).toBeLessThan(1 << 20);
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.message).toMatch(/only the first 100 problems are listed; more were omitted/);
    expect(res.body.validationErrors).toHaveLength(100);
    expect(res.body.validationErrors[0].jsonPath).toMatch(/^\$\.rules\[0\]/);
    expect(res.body.validationErrors.at(-1).jsonPath).toMatch(/^\$\.rules\[(2[0-9]|3[0-9])\]/);
    expect(sim.scenarios()).toEqual([]);
  });
});

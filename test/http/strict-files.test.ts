/**
 * Strict files and impossible dates through the control API and the library: PUT /_sim/scenarios,
 * PUT /_sim/state, PUT /_sim/clock, sim.loadScenarios, sim.clock.set, fixtures and scenario options.
 * The simulated API keeps ignoring unknown fields and keeps refusing impossible dates.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SimulatorError } from '../../src/index.js';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const control = (sim: ReturnType<typeof testSimulator>) => request(handlerOf(sim));

const ISSUE_EXAMPLE = {
  name: 'typo',
  rulez: [],
  token: [],
  rules: [{ when: { opertion: 'sale', curency: 'EUR' }, then: { delayMs: 5 } }],
};
const ISSUE_EXAMPLE_YAML = ['name: typo', 'rulez: []', 'token: []', 'rules:', '  - when: { opertion: sale, curency: EUR }', '    then: { delayMs: 5 }', ''].join('\n');
const ISSUE_PROBLEMS = [
  { errorName: 'fieldIsNotAllowed', message: 'opertion is not a field of this object; did you mean operation?', jsonPath: '$.rules[0].when.opertion' },
  { errorName: 'fieldIsNotAllowed', message: 'curency is not a field of this object; did you mean currency?', jsonPath: '$.rules[0].when.curency' },
  { errorName: 'fieldIsNotAllowed', message: 'rulez is not a field of this object; did you mean rules?', jsonPath: '$.rulez' },
  { errorName: 'fieldIsNotAllowed', message: 'token is not a field of this object; did you mean tokens?', jsonPath: '$.token' },
];
const OUTAGE = { name: 'down', rules: [{ then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] };

describe('PUT /_sim/scenarios with keys the format does not define', () => {
  it('answers 400 with one fieldIsNotAllowed per key, and keeps the previous set (JSON)', async () => {
    const sim = testSimulator();
    expect((await control(sim).put('/_sim/scenarios').send(OUTAGE)).status).toBe(200);
    const res = await control(sim).put('/_sim/scenarios').send(ISSUE_EXAMPLE);
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({ errorName: 'bodyDoesNotMatchSchema', message: expect.any(String), validationErrors: ISSUE_PROBLEMS });
    expect((await control(sim).get('/_sim/scenarios')).body.scenarios.map((s: { name: string }) => s.name)).toEqual(['down']);
  });

  it('answers the same for a YAML body', async () => {
    const res = await control(testSimulator()).put('/_sim/scenarios').set('Content-Type', 'application/yaml').send(ISSUE_EXAMPLE_YAML);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toStrictEqual(ISSUE_PROBLEMS);
  });

  it('refuses a between date that does not exist at its JSONPath', async () => {
    const scenario = { name: 'dates', rules: [{ when: { between: { from: '2030-02-31T00:00:00Z' } }, then: { delayMs: 1 } }] };
    const res = await control(testSimulator()).put('/_sim/scenarios').send(scenario);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toStrictEqual([
      { errorName: 'dateHasInvalidFormat', message: 'from must be a date and time that exists: February 2030 has 28 days', jsonPath: '$.rules[0].when.between.from' },
    ]);
  });
});

describe('PUT /_sim/state with keys the format does not define', () => {
  it('answers 400 at each key’s JSONPath and changes nothing', async () => {
    const sim = testSimulator();
    const links = await createToken(client(sim));
    const state = sim.exportState() as unknown as Record<string, unknown> & { tokens: Record<string, unknown>[]; clock: Record<string, unknown> };
    state.tokenz = [];
    state.clock.frozn = true;
    state.tokens[0]!.cardHolder = 'A';
    await control(sim).post('/_sim/clock/advance').send({ by: 'P1D' });
    const res = await control(sim).put('/_sim/state').send(state);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors).toStrictEqual([
      { errorName: 'fieldIsNotAllowed', message: 'frozn is not a field of this object; did you mean frozen?', jsonPath: '$.clock.frozn' },
      { errorName: 'fieldIsNotAllowed', message: 'cardHolder is not a field of this object', jsonPath: '$.tokens[0].cardHolder' },
      { errorName: 'fieldIsNotAllowed', message: 'tokenz is not a field of this object; did you mean tokens?', jsonPath: '$.tokenz' },
    ]);
    expect((await control(sim).get('/_sim/clock')).body.now).toBe('2030-01-02T00:00:00Z');
    expect((await client(sim).get(links['tokens:token']!)).status).toBe(200);
  });

  it('refuses a clock date that does not exist', async () => {
    const sim = testSimulator();
    const state = sim.exportState() as unknown as { clock: { now: string } };
    state.clock.now = '2030-02-31T00:00:00Z';
    const res = await control(sim).put('/_sim/state').send(state);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toStrictEqual([
      { errorName: 'dateHasInvalidFormat', message: 'now must be a date and time that exists: February 2030 has 28 days', jsonPath: '$.clock.now' },
    ]);
  });

  it('still imports what it exports', async () => {
    const sim = testSimulator();
    await createToken(client(sim));
    expect((await control(sim).put('/_sim/state').send(sim.exportState())).status).toBe(204);
  });
});

describe('PUT /_sim/clock with a date that does not exist', () => {
  it.each([
    ['2030-02-31T00:00:00Z', 'February 2030 has 28 days'],
    ['2031-02-29', 'February 2031 has 28 days'],
    ['2030-01-01T23:60:00Z', 'minutes go up to 59, not 60'],
    ['2030-01-01T00:00:00-24:00', 'zone offsets go up to ±23:59, not 24:00'],
  ])('answers 400 dateHasInvalidFormat at $.now for %p and leaves the clock alone', async (now, reason) => {
    const sim = testSimulator();
    const res = await control(sim).put('/_sim/clock').send({ now });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      errorName: 'bodyDoesNotMatchSchema',
      message: expect.any(String),
      validationErrors: [{ errorName: 'dateHasInvalidFormat', message: `now must be a date and time that exists: ${reason}`, jsonPath: '$.now' }],
    });
    expect((await control(sim).get('/_sim/clock')).body.now).toBe('2030-01-01T00:00:00Z');
  });

  it('still takes a leap day', async () => {
    expect((await control(testSimulator()).put('/_sim/clock').send({ now: '2032-02-29' })).body.now).toBe('2032-02-29T00:00:00Z');
  });
});

describe('the library', () => {
  it('sim.loadScenarios throws a SimulatorError listing each unknown key', () => {
    const sim = testSimulator();
    let error: unknown;
    try {
      sim.loadScenarios(ISSUE_EXAMPLE);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SimulatorError);
    expect((error as SimulatorError).details.validationErrors).toStrictEqual(ISSUE_PROBLEMS);
    expect(sim.scenarios()).toEqual([]);
  });

  it('sim.clock.set refuses a date that does not exist and leaves the clock alone', () => {
    const sim = testSimulator();
    expect(() => sim.clock.set('2030-02-31T00:00:00Z')).toThrow(/2030-02-31|February 2030 has 28 days/);
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('refuses fixtures with an unknown key, naming it with a hint', () => {
    const fixtures = {
      credentials: [{ username: 'merchant', password: 'secret', entities: ['default'], entites: [] }],
      entities: { default: { currencies: ['GBP'], networks: ['VISA'] } },
      bins: [{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }],
    };
    expect(() => testSimulator({ fixtures })).toThrow('$.credentials[0].entites: entites is not a field of this object; did you mean entities?');
  });

  it('refuses a scenario option with an unknown key', () => {
    expect(() => testSimulator({ scenarios: [ISSUE_EXAMPLE] })).toThrow(/did you mean operation\?/);
  });

  it('refuses --now / now that does not exist', () => {
    expect(() => testSimulator({ now: '2030-02-31T00:00:00Z' })).toThrow("--now must be an ISO 8601 date-time such as 2030-01-01T00:00:00Z, got '2030-02-31T00:00:00Z': February 2030 has 28 days");
  });
});

describe('the simulated API', () => {
  it('still ignores unknown fields at any depth of a create body', async () => {
    const body = createBody({ colour: 'blue', cardExpiryDate: { month: 5, year: 2035, day: 1 } }, { extra: { a: 1 }, merchant: { entity: 'default', id: 7 } });
    expect((await client(testSimulator()).create(body)).status).toBe(201);
  });

  it('still refuses a tokenExpiryDateTime that does not exist, as dateHasInvalidFormat', async () => {
    const res = await client(testSimulator()).create(createBody({}, { tokenExpiryDateTime: '2030-02-31T00:00:00Z' }));
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toStrictEqual([
      { errorName: 'dateHasInvalidFormat', message: 'tokenExpiryDateTime must be a date and time that exists: February 2030 has 28 days', jsonPath: '$.tokenExpiryDateTime' },
    ]);
  });
});

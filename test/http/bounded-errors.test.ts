/**
 * Issue 13, defect 5: validation errors amplified (a 1 MiB invalid PUT /_sim/scenarios answered 349,504
 * validationErrors, 29 MiB). Every answer now lists at most 100, and its message says when more were omitted.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SimulatorError } from '../../src/index.js';
import { handlerOf, testSimulator } from '../support/sim.js';

const LIMIT = 100;
const OMITTED = /only the first 100 problems are listed/;

/** About 1 MiB of scenario JSON in which every rule breaks the schema twice (an unknown key, no `then`). */
function hugeInvalidScenario(): Record<string, unknown> {
  return { name: 'huge', rules: Array.from({ length: 120_000 }, () => ({ x: 0 })) };
}

describe('bounded validation errors', () => {
  it('answers the issue reproduction (1 MiB invalid PUT /_sim/scenarios) with 100 items and says more were omitted', async () => {
    const sim = testSimulator();
    const body = JSON.stringify(hugeInvalidScenario());
    expect(body.length).toBeGreaterThan(900_000);
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors).toHaveLength(LIMIT);
    expect(res.body.validationErrors[0]).toMatchObject({ errorName: 'fieldIsMissing', jsonPath: '$.rules[0].then' });
    expect(res.body.message).toMatch(OMITTED);
    expect(res.text.length).toBeLessThan(50_000);
  });

  it('lists every problem, and says nothing of omissions, at exactly 100', async () => {
    const sim = testSimulator();
    const scenario = { name: 'hundred', rules: Array.from({ length: 100 }, () => ({ then: { delayMs: 1 }, x: 0 })) };
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').send(scenario);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toHaveLength(LIMIT);
    expect(res.body.validationErrors[99]).toMatchObject({ errorName: 'fieldIsNotAllowed', jsonPath: '$.rules[99].x' });
    expect(res.body.message).not.toMatch(OMITTED);
  });

  it('bounds a state import with many bad tokens too', async () => {
    const sim = testSimulator();
    const agent = request(handlerOf(sim));
    const state = (await agent.get('/_sim/state')).body as Record<string, unknown>;
    const res = await agent.put('/_sim/state').send({ ...state, tokens: Array.from({ length: 500 }, () => ({})) });
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toHaveLength(LIMIT);
    expect(res.body.message).toMatch(OMITTED);
  });

  it("bounds the library's SimulatorError details alike", () => {
    const sim = testSimulator();
    let error: unknown;
    try {
      sim.loadScenarios(hugeInvalidScenario());
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SimulatorError);
    const details = (error as SimulatorError).details;
    expect(details.validationErrors).toHaveLength(LIMIT);
    expect(details.message).toMatch(OMITTED);
  });
});

import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { testSimulator, handlerOf } from '../support/sim.js';

describe('/_sim control API', () => {
  it('answers health without credentials', async () => {
    const res = await request(handlerOf(testSimulator())).get('/_sim/health');
    expect(res.status).toBe(200);
    // It says where the state lives (contract 3.5): memory here, Redis in the "http (redis)" project.
    expect(res.body).toEqual(process.env.TOKEN_SIM_TEST_STORE === 'redis' ? { status: 'ok', store: { kind: 'redis', up: true } } : { status: 'ok', store: { kind: 'memory' } });
  });

  it('shows the clock', async () => {
    const res = await request(handlerOf(testSimulator())).get('/_sim/clock');
    expect(res.body).toEqual({ now: '2030-01-01T00:00:00Z', frozen: true });
  });

  it('advances by an ISO duration or by milliseconds and answers the new clock', async () => {
    const sim = testSimulator();
    expect((await request(handlerOf(sim)).post('/_sim/clock/advance').send({ by: 'P8D' })).body).toEqual({ now: '2030-01-09T00:00:00Z', frozen: true });
    expect((await request(handlerOf(sim)).post('/_sim/clock/advance').send({ by: 1500 })).body.now).toBe('2030-01-09T00:00:01.500Z');
    expect(sim.clock.now()).toBe('2030-01-09T00:00:01.500Z');
  });

  it.each<[string, unknown, string, string]>([
    ['a negative number', { by: -1 }, 'fieldHasInvalidValue', '$.by'],
    ['a negative duration', { by: '-P1D' }, 'fieldHasInvalidValue', '$.by'],
    ['an unparsable duration', { by: 'eight days' }, 'fieldHasInvalidValue', '$.by'],
    ['a missing by', {}, 'fieldIsMissing', '$.by'],
    ['a boolean', { by: true }, 'fieldHasInvalidValue', '$.by'],
  ])('refuses %s with 400', async (_name, body, errorName, jsonPath) => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).post('/_sim/clock/advance').send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors[0]).toMatchObject({ errorName, jsonPath });
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('sets the time, backwards too, and can unfreeze it', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).put('/_sim/clock').send({ now: '2029-06-01T12:00:00+02:00', frozen: false });
    expect(res.status).toBe(200);
    expect(res.body.frozen).toBe(false);
    expect(Date.parse(res.body.now)).toBeGreaterThanOrEqual(Date.parse('2029-06-01T10:00:00Z'));
    expect(Date.parse(sim.clock.now())).toBeLessThan(Date.parse('2029-06-01T10:01:00Z'));
  });

  it('sets the time from a date alone, as UTC midnight', async () => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/clock').send({ now: '2031-02-03' });
    expect(res.body).toEqual({ now: '2031-02-03T00:00:00Z', frozen: true });
  });

  it('moves the library clock with the same formats as the HTTP clock', () => {
    const sim = testSimulator();
    expect(sim.clock.advance('P8D')).toBe('2030-01-09T00:00:00Z');
    expect(sim.clock.set('2031-01-01')).toBe('2031-01-01T00:00:00Z');
    // The same refusal as POST /_sim/clock/advance, so one suite runs unchanged against a remote simulator.
    expect(() => sim.clock.advance('-P1D')).toThrow(expect.objectContaining({ name: 'SimulatorError', errorName: 'bodyDoesNotMatchSchema' }));
    expect(() => sim.clock.set('tomorrow')).toThrow(expect.objectContaining({ name: 'SimulatorError', errorName: 'bodyDoesNotMatchSchema' }));
  });

  it('refuses a set without a valid date-time', async () => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/clock').send({ now: 'tomorrow' });
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0]).toMatchObject({ errorName: 'dateHasInvalidFormat', jsonPath: '$.now' });
  });

  it('answers bodyIsNotJson and 405 with the standard error body', async () => {
    const sim = testSimulator();
    const bad = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Content-Type', 'application/json').send('{');
    expect(bad.body.errorName).toBe('bodyIsNotJson');
    const wrong = await request(handlerOf(sim)).delete('/_sim/clock');
    expect(wrong.status).toBe(405);
    expect(wrong.body.errorName).toBe('methodNotAllowed');
  });
});

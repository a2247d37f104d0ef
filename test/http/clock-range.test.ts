/**
 * Issue 13, defect 1: the clock has a range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. A clock call
 * that would leave it is a 400 at its field, token expiries stop at the range's end, and no clock call can
 * make a later request answer 5xx.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const END = '9999-12-31T23:59:59.999Z';
const START_OF_RANGE = '0001-01-01T00:00:00Z';

type Sim = ReturnType<typeof testSimulator>;

/** Every read the issue saw answer 500 after one bad clock call. */
async function expectAllAnswer(sim: Sim): Promise<void> {
  const agent = request(handlerOf(sim));
  expect((await agent.get('/_sim/clock')).status).toBe(200);
  expect((await client(sim).create(createBody())).status).toBeLessThan(300);
  expect((await agent.get('/_sim/tokens')).status).toBe(200);
  expect((await agent.get('/_sim/state')).status).toBe(200);
  expect((await agent.get('/_sim/requests')).status).toBe(200);
}

function expectRefusedAt(res: request.Response, jsonPath: string): void {
  expect(res.status).toBe(400);
  expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
  expect(res.body.validationErrors).toEqual([expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath })]);
}

describe('the clock range', () => {
  it.each([
    ['the shared clock', ''],
    ["a tenant's clock", '?tenant=merchant'],
  ])('refuses the issue reproduction (advance by 8640000000000000 ms) on %s with 400 at $.by, and keeps answering', async (_name, query) => {
    const sim = testSimulator();
    await createToken(client(sim));
    const res = await request(handlerOf(sim)).post(`/_sim/clock/advance${query}`).send({ by: 8640000000000000 });
    expectRefusedAt(res, '$.by');
    expect((await request(handlerOf(sim)).get(`/_sim/clock${query}`)).body).toEqual({ now: '2030-01-01T00:00:00Z', frozen: true });
    await expectAllAnswer(sim);
  });

  it.each([
    ['a number past the end', { by: 253402300800000 }],
    ['a duration past the end', { by: 'P7980Y' }],
    ['a duration past what dates can hold', { by: 'P300000Y' }],
  ])('refuses an advance by %s', async (_name, body) => {
    const sim = testSimulator();
    expectRefusedAt(await request(handlerOf(sim)).post('/_sim/clock/advance').send(body), '$.by');
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('advances up to the last millisecond of the range, and not one past it', async () => {
    const sim = testSimulator();
    const agent = request(handlerOf(sim));
    expect((await agent.put('/_sim/clock').send({ now: '9999-12-31T23:59:59.998Z' })).status).toBe(200);
    expect((await agent.post('/_sim/clock/advance').send({ by: 1 })).body).toEqual({ now: END, frozen: true });
    expectRefusedAt(await agent.post('/_sim/clock/advance').send({ by: 1 }), '$.by');
    expectRefusedAt(await agent.post('/_sim/clock/advance').send({ by: 'PT1S' }), '$.by');
    expect((await agent.post('/_sim/clock/advance').send({ by: 0 })).body).toEqual({ now: END, frozen: true });
    await expectAllAnswer(sim);
  });

  it.each([
    ['the range end', END, END],
    ['the range start', START_OF_RANGE, START_OF_RANGE],
    ['the range end written with an offset', '10000-01-01T00:59:59.999+01:00', undefined],
  ])('sets the clock to %s', async (_name, now, expected) => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).put('/_sim/clock').send({ now });
    if (expected === undefined) {
      // Not a 4-digit year: not a date the simulator reads.
      expect(res.status).toBe(400);
      expect(res.body.validationErrors[0]).toMatchObject({ errorName: 'dateHasInvalidFormat', jsonPath: '$.now' });
    } else {
      expect(res.body).toEqual({ now: expected, frozen: true });
    }
  });

  it.each([
    ['past the end, through a zone offset', '9999-12-31T23:59:59-01:00', ''],
    ['before the start (year 0)', '0000-12-31T23:59:59.999Z', ''],
    ['before the start, through a zone offset', '0001-01-01T00:00:00+00:01', ''],
    ["past the end on a tenant's clock", '9999-12-31T23:30:00-01:00', '?tenant=merchant'],
  ])('refuses a set %s with 400 at $.now', async (_name, now, query) => {
    const sim = testSimulator();
    expectRefusedAt(await request(handlerOf(sim)).put(`/_sim/clock${query}`).send({ now }), '$.now');
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
    await expectAllAnswer(sim);
  });

  it('caps the expiry of a token created near the end at the end of the range', async () => {
    const sim = testSimulator();
    sim.clock.set('9999-12-30T00:00:00Z');
    const res = await client(sim).create(createBody());
    expect(res.status).toBe(201);
    expect(res.body.tokenExpiryDateTime).toBe(END);
  });

  it('caps a requested expiry past the end at the end of the range', async () => {
    const sim = testSimulator();
    sim.clock.set('9999-12-30T00:00:00Z');
    const res = await client(sim).create(createBody({}, { tokenExpiryDateTime: '9999-12-31T23:59:59-05:00' }));
    expect(res.status).toBe(201);
    expect(res.body.tokenExpiryDateTime).toBe(END);
  });

  it('caps an extension at the end of the range, and the token then expires there', async () => {
    const sim = testSimulator({ profile: 'live' });
    sim.clock.set('9996-01-01T00:00:00Z');
    const api = client(sim);
    const links = await createToken(api);
    expect((await api.get(links['tokens:token']!)).body.tokenExpiryDateTime).toBe('9999-12-31T23:59:59.999Z');
    sim.clock.set('9998-06-01T00:00:00Z');
    const used = await api.get(links['tokens:token']!);
    expect(used.status).toBe(200);
    expect(used.body.tokenExpiryDateTime).toBe(END);
    expect((await request(handlerOf(sim)).get('/_sim/state')).status).toBe(200);
    sim.clock.set(END);
    expect((await api.get(links['tokens:token']!)).status).toBe(404);
    await expectAllAnswer(sim);
  });

  it('keeps a conflict window inside the range', async () => {
    const sim = testSimulator();
    sim.clock.set(END);
    const api = client(sim);
    sim.clock.set('9999-12-31T23:59:00Z');
    await createToken(api);
    const conflict = await api.create(createBody({ cardHolderName: 'John Watson' }));
    expect(conflict.status).toBeLessThan(500);
    const exported = (await request(handlerOf(sim)).get('/_sim/state')).body;
    expect((await request(handlerOf(sim)).put('/_sim/state').send(exported)).status).toBe(204);
  });

  it.each([
    ['the shared clock', (s: Record<string, unknown>) => ({ ...s, clock: { now: '0000-06-01T00:00:00Z', frozen: true } }), '$.clock.now'],
    ['a tenant clock', (s: Record<string, unknown>) => ({ ...s, tenantClocks: { merchant: { now: '9999-12-31T23:59:59-02:00', frozen: true } } }), '$.tenantClocks.merchant.now'],
  ])('refuses a state import with %s outside the range', async (_name, edit, jsonPath) => {
    const sim = testSimulator();
    const agent = request(handlerOf(sim));
    const exported = (await agent.get('/_sim/state')).body as Record<string, unknown>;
    expectRefusedAt(await agent.put('/_sim/state').send(edit(exported)), jsonPath);
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });
});

describe('the library clock range', () => {
  const refusal = (jsonPath: string) =>
    expect.objectContaining({
      name: 'SimulatorError',
      errorName: 'bodyDoesNotMatchSchema',
      details: expect.objectContaining({ validationErrors: [expect.objectContaining({ errorName: 'fieldHasInvalidValue', jsonPath })] }),
    });

  it('refuses an advance past the end with the same error as /_sim', () => {
    const sim = testSimulator();
    expect(() => sim.clock.advance(8640000000000000)).toThrow(refusal('$.by'));
    expect(() => sim.clock.advance('P8000Y', 'merchant')).toThrow(refusal('$.by'));
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it.each([
    ['epoch milliseconds past the end', 253402300800000],
    ['epoch milliseconds past what dates hold', 1e17],
    ['a Date past the end', new Date(8.64e15)],
    ['epoch milliseconds before the start', -62135596800001],
  ])('refuses a set to %s at $.now', (_name, now) => {
    const sim = testSimulator();
    expect(() => sim.clock.set(now)).toThrow(refusal('$.now'));
    expect(() => sim.tenant('merchant').clock.set(now)).toThrow(refusal('$.now'));
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('sets the range ends from epoch milliseconds', () => {
    const sim = testSimulator();
    expect(sim.clock.set(253402300799999)).toBe(END);
    expect(sim.clock.set(-62135596800000)).toBe(START_OF_RANGE);
  });
});

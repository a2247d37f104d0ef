/**
 * The simulator takes back its own export (found by test/security/control-sequences.property.test.ts): a
 * token's lifetimeMs that happens to read as a card number (Luhn-valid, 12 to 19 digits) was masked in
 * `GET /_sim/state` as if it were one, and the import then refused it.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { client, createBody, handlerOf, testSimulator } from '../support/sim.js';

describe("the simulator's own export", () => {
  it('keeps a lifetime that passes the Luhn check as a number, and imports it back', async () => {
    const sim = testSimulator();
    // 2030-01-01T00:00:00Z + 251508844799997 ms, a Luhn-valid 15-digit number.
    const created = await client(sim).create(createBody({}, { tokenExpiryDateTime: '9999-12-31T23:59:59.997Z' }));
    expect(created.status).toBe(201);
    const agent = request(handlerOf(sim));
    const exported = await agent.get('/_sim/state');
    expect(exported.body.tokens[0].lifetimeMs).toBe(251508844799997);
    expect((await agent.put('/_sim/state').set('Content-Type', 'application/json').send(exported.text)).status).toBe(204);
  });

  it('still masks a card number a client wrote in a token description', async () => {
    const sim = testSimulator();
    await client(sim).create(createBody({}, { description: 'card 4444333322221111' }));
    const exported = await request(handlerOf(sim)).get('/_sim/state');
    expect(exported.text).not.toContain('4444333322221111');
  });
});

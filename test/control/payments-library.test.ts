/**
 * The library's `payments()` (decision 0034): on a simulator in this process, on its tenant handles, and on
 * `connectSimulator` (paging through `GET /_sim/payments`), the same items as the control API lists.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SimulatorError } from '../../src/simulator/facade.js';
import { connectSimulator } from '../../src/simulator/remote.js';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';
import { createSimulator } from '../../src/index.js';

const OPTIONS = { seed: 'test', now: '2030-01-01T00:00:00Z', frozen: true, users: ['alice:pa', 'bob:pb'], log: 'silent' as const };
const quiet = { writeErr: () => undefined };
const SALE_PATH = '/payments/sales/migrateCardOnFile';

const running: StartedSimulator[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

const saleBody = (reference: string): string =>
  JSON.stringify({
    instruction: {
      value: { amount: 250, currency: 'GBP' },
      narrative: { line1: 'Baker Street Stores' },
      paymentInstrument: { type: 'card/plain', cardNumber: '4444333322221111', cardHolderName: 'Sherlock Holmes', cardExpiryDate: { month: 5, year: 2035 } },
    },
    merchant: { entity: 'default' },
    transactionReference: reference,
  });

async function sell(handler: Parameters<typeof request>[0], user: string, password: string, reference: string): Promise<void> {
  const res = await request(handler)
    .post(SALE_PATH)
    .auth(user, password)
    .set('Content-Type', 'application/vnd.service.payments-v5+json')
    .set('Accept', 'application/vnd.service.payments-v5.hal+json')
    .send(saleBody(reference));
  expect(res.status).toBe(201);
}

describe('payments() in the library', () => {
  it('lists payments oldest first with events caught up, per tenant or all, as /_sim/payments does', async () => {
    const sim = createSimulator(OPTIONS, quiet);
    await sell(sim.app, 'alice', 'pa', 'order-a');
    sim.clock.advance('PT1S');
    await sell(sim.app, 'bob', 'pb', 'order-b');
    expect(sim.payments().map((p) => [p.tenant, p.transactionReference, p.lastEvent])).toEqual([
      ['alice', 'order-a', 'sentForSettlement'],
      ['bob', 'order-b', 'sentForSettlement'],
    ]);
    sim.tenant('alice').clock.advance('P1D');
    expect(sim.tenant('alice').payments().map((p) => [p.transactionReference, p.lastEvent, p.events.length])).toEqual([['order-a', 'settled', 2]]);
    expect(sim.payments('bob').map((p) => p.lastEvent)).toEqual(['sentForSettlement']);
    const listed = (await request(sim.app).get('/_sim/payments')).body as { payments: unknown[] };
    expect(sim.payments()).toEqual(listed.payments);
    expect(() => sim.payments('nobody')).toThrow(SimulatorError);
  });

  it('reads the same over HTTP with connectSimulator', async () => {
    const server = await startSimulator({ ...OPTIONS, port: 0, host: '127.0.0.1' }, quiet);
    running.push(server);
    await sell(server.listener, 'alice', 'pa', 'order-a');
    await sell(server.listener, 'bob', 'pb', 'order-b');
    const remote = connectSimulator(server.url);
    expect(await remote.payments()).toEqual(server.payments());
    expect((await remote.tenant('bob').payments()).map((p) => p.transactionReference)).toEqual(['order-b']);
    const own = connectSimulator(server.url, { username: 'alice', password: 'pa' });
    expect((await own.payments()).map((p) => p.transactionReference)).toEqual(['order-a']);
  });
});

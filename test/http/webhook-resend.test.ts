/**
 * `POST /_sim/webhooks/{id}/resend` and `resendWebhook(id)` (contract 4.4, decision 0056): a delivery of the log
 * sent again, the same event and eventId, as a new delivery with an id of its own; 404 resourceNotFound for an id
 * the log does not show, or another tenant's. Over HTTP, in process and through connectSimulator, on both stores.
 */
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { SimulatorOptions } from '../../src/config/options.js';
import { connectSimulator, type Simulator } from '../../src/index.js';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';
import { sale, saleBody } from '../support/sale.js';
import { handlerOf, testSimulator } from '../support/sim.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const servers: Server[] = [];
const running: StartedSimulator[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
afterAll(async () => {
  await Promise.all(running.map((sim) => sim.close()));
});

/** A real receiver that answers 204 and keeps every body, in order. */
async function receiver(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, bodies };
}

const eventIdOf = (body: string | undefined): string => (JSON.parse(body ?? '{}') as { eventId: string }).eventId;

/** A simulator with one delivered sentForSettlement of `merchant`; its delivery's id. */
async function oneDelivered(options: SimulatorOptions = {}): Promise<{ sim: Simulator; hook: { url: string; bodies: string[] }; id: string }> {
  const hook = await receiver();
  const sim = testSimulator({ webhookUrl: hook.url, users: ['alice:pa'], ...options });
  expect((await sale(sim, saleBody())).status).toBe(201);
  await sim.flushWebhooks();
  const [first] = sim.webhooks();
  return { sim, hook, id: first?.id ?? '' };
}

describe('POST /_sim/webhooks/{id}/resend', () => {
  it('sends the delivery again, same eventId and body, as a new entry of the log with an id of its own', async () => {
    const { sim, hook, id } = await oneDelivered();
    const res = await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend`);
    expect(res.status).toBe(202);
    expect(res.headers['content-type']).toBe('application/json');
    const eventId = eventIdOf(hook.bodies[0]);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{16}$/), eventId, resendOf: id });
    expect(res.body.id).not.toBe(id);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(2);
    expect(hook.bodies[1]).toBe(hook.bodies[0]);
    expect(sim.webhooks().map((d) => [d.id, d.eventId, d.state, d.rule])).toEqual([
      [id, eventId, 'delivered', null],
      [res.body.id, eventId, 'delivered', null],
    ]);
    // The resent delivery can be resent in turn.
    expect((await request(handlerOf(sim)).post(`/_sim/webhooks/${res.body.id as string}/resend`)).status).toBe(202);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(3);
  });

  it('sends a delivery a rule dropped: a resend passes every rule', async () => {
    const { sim, hook, id } = await oneDelivered({ scenarios: [{ name: 'lost', rules: [{ id: 'lost', when: { operation: 'webhook' }, then: { drop: true } }] }] });
    expect(hook.bodies).toEqual([]);
    expect(sim.webhooks().map((d) => d.state)).toEqual(['dropped']);
    expect((await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend`)).status).toBe(202);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(1);
    expect(sim.webhooks().map((d) => [d.state, d.rule])).toEqual([
      ['dropped', 'lost'],
      ['delivered', null],
    ]);
  });

  it('answers 404 resourceNotFound for an id the log does not show, and 400 for a query parameter', async () => {
    const { sim, hook } = await oneDelivered();
    const res = await request(handlerOf(sim)).post('/_sim/webhooks/NOSUCHDELIVERY00/resend');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errorName: 'resourceNotFound', message: "No webhook delivery 'NOSUCHDELIVERY00' in this simulator's delivery log" });
    const extra = await request(handlerOf(sim)).post(`/_sim/webhooks/${sim.webhooks()[0]?.id ?? ''}/resend?force=true`);
    expect([extra.status, extra.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(1);
  });

  it("lets a tenant's credentials resend its own deliveries only: another tenant's is not found", async () => {
    const { sim, hook, id } = await oneDelivered();
    const other = await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend`).set('Authorization', basic('alice', 'pa'));
    expect([other.status, other.body.errorName, other.body.message]).toEqual([404, 'resourceNotFound', `No webhook delivery '${id}' of tenant 'alice' in this simulator's delivery log`]);
    expect((await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend?tenant=alice`)).status).toBe(404);
    const own = await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend`).set('Authorization', basic('merchant', 'secret'));
    expect(own.status).toBe(202);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(2);
  });

  it('is reset away with the log', async () => {
    const { sim, id } = await oneDelivered();
    sim.reset();
    expect((await request(handlerOf(sim)).post(`/_sim/webhooks/${id}/resend`)).status).toBe(404);
  });
});

describe('resendWebhook(id)', () => {
  it('resends in process, on the simulator and on a tenant handle, with the refusals of the HTTP call', async () => {
    const { sim, hook, id } = await oneDelivered();
    const again = sim.resendWebhook(id);
    expect(again).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{16}$/), eventId: eventIdOf(hook.bodies[0]), resendOf: id });
    expect(sim.tenant('merchant').resendWebhook(again.id).resendOf).toBe(again.id);
    await sim.flushWebhooks();
    expect(hook.bodies).toHaveLength(3);
    expect(() => sim.tenant('alice').resendWebhook(id)).toThrow(expect.objectContaining({ name: 'SimulatorError', errorName: 'resourceNotFound' }));
    expect(() => sim.resendWebhook(id, 'nobody')).toThrow(expect.objectContaining({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' }));
    expect(() => sim.resendWebhook('')).toThrow(expect.objectContaining({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' }));
  });

  it('resends through connectSimulator, by the same row', async () => {
    const hook = await receiver();
    const REDIS_URL = process.env.TOKEN_SIM_TEST_STORE === 'redis' ? process.env.JEST_REDIS_URL : undefined;
    const store = REDIS_URL === undefined ? {} : { store: REDIS_URL, storePrefix: `resend:${process.pid}:${Date.now()}:` };
    const sim = await startSimulator({ port: 0, seed: 'resend', now: '2030-01-01T00:00:00Z', frozen: true, webhookUrl: hook.url, ...store }, { writeErr: () => undefined });
    running.push(sim);
    expect((await sale(sim, saleBody())).status).toBe(201);
    const remote = connectSimulator(sim.url);
    await remote.flushWebhooks();
    const [first] = await remote.webhooks();
    const again = await remote.resendWebhook(first?.id ?? '');
    expect(again).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{16}$/), eventId: first?.eventId, resendOf: first?.id });
    expect((await remote.tenant('merchant').resendWebhook(again.id)).resendOf).toBe(again.id);
    await remote.flushWebhooks();
    expect(hook.bodies).toHaveLength(3);
    await expect(remote.resendWebhook('NOSUCHDELIVERY00')).rejects.toMatchObject({ name: 'SimulatorError', errorName: 'resourceNotFound' });
  });
});

/** Payment events as webhooks, end to end: the payment domain, the dispatcher, and a real HTTP receiver. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { SALE_REQUEST, SALE_RESPONSE, plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, START, handlerOf, pathOf, scenarioFile, testSimulator as makeSimulator } from '../support/sim.js';

interface Received {
  status: number;
  type: string | undefined;
  body: {
    eventId: string;
    eventTimestamp: string;
    eventDetails: { type: string; amount: { value: number; currencyCode: string }; reference?: string; refund?: unknown; _links: { payment: { href: string } } };
  };
}

const receivers: Server[] = [];
const simulators: Simulator[] = [];
afterEach(async () => {
  // A reset drops the deliveries a simulator would otherwise go on retrying after its test.
  for (const sim of simulators.splice(0)) sim.reset();
  for (const server of receivers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A real receiver that answers `statuses` in turn (then 204), and notes every request to its own URL. Its path is
 * its own: a request meant for another test's receiver (on a port used again) is answered 404, not noted.
 */
async function receiver(statuses: number[] = [], hang = false): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const plan = [...statuses];
  const path = `/hooks/${randomUUID()}`;
  const server = createServer((req: IncomingMessage, res) => {
    if (req.url !== path) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (hang) return;
      const status = plan.shift() ?? 204;
      received.push({ status, type: req.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receivers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, received };
}

type Links = Record<string, { href: string }>;
const testSimulator = (options?: Parameters<typeof makeSimulator>[0]): Simulator => {
  const sim = makeSimulator(options);
  simulators.push(sim);
  return sim;
};
const post = (sim: Simulator, href: string, body?: unknown) => {
  const req = request(handlerOf(sim)).post(pathOf(href)).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE);
  return body === undefined ? req.send() : req.set('Content-Type', SALE_REQUEST).send(JSON.stringify(body));
};
const partial = (amount: number, reference: string) => ({ value: { amount, currency: 'GBP' }, reference });
const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });
const delivered = (r: Received[]) => r.filter((x) => x.status < 300);

describe('payment webhooks', () => {
  it('sends a refused sale\u2019s event without a refund refusal: the sale answer carries the refusal', async () => {
    const hook = await receiver();
    const sim = testSimulator({ now: START, frozen: true, webhookUrl: hook.url });
    const res = await sale(sim, saleBody(plainCard({ cardHolderName: 'REFUSED51' })));
    expect([res.status, res.body.outcome, res.body.refusalCode]).toEqual([201, 'refused', '51']);
    expect(await sim.flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect(hook.received.map((r) => r.body.eventDetails)).toEqual([
      {
        classification: 'payment',
        transactionReference: 'order-0001',
        type: 'refused',
        date: '2030-01-01',
        amount: { value: 250, currencyCode: 'GBP' },
        _links: { payment: { href: expect.stringMatching(/\/payments\/events\//) } },
      },
    ]);
  });

  it('sends every event of a payment, in order, in the vendor’s body, stamped with virtual time', async () => {
    const hook = await receiver();
    const sim = testSimulator({ now: START, frozen: true, webhookUrl: hook.url });
    const links: Links = (await sale(sim, saleBody(undefined, { transactionReference: 'order-0001' }))).body._links;
    expect((await post(sim, links['payments:partialRefund']?.href ?? '', partial(100, 'first'))).status).toBe(202);
    expect((await post(sim, links['payments:partialRefund']?.href ?? '', partial(50, 'second'))).status).toBe(202);
    expect((await advance(sim, 'P1D')).status).toBe(200);
    expect(await sim.flushWebhooks()).toEqual({ flushed: true, pending: 0 });

    expect(hook.received.map((r) => r.type)).toEqual(Array(4).fill('application/vnd.service.events-v1.hal+json'));
    expect(hook.received.map((r) => [r.body.eventDetails.type, r.body.eventDetails.amount.value, r.body.eventDetails.reference, r.body.eventTimestamp])).toEqual([
      ['sentForSettlement', 250, undefined, '2030-01-01T00:00:00Z'],
      ['sentForRefund', 100, 'first', '2030-01-01T00:00:00Z'],
      ['sentForRefund', 50, 'second', '2030-01-01T00:00:00Z'],
      ['settled', 250, undefined, '2030-01-02T00:00:00Z'],
    ]);
    expect(hook.received[3]?.body).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      eventTimestamp: '2030-01-02T00:00:00Z',
      eventDetails: {
        classification: 'payment',
        transactionReference: 'order-0001',
        type: 'settled',
        date: '2030-01-02',
        amount: { value: 250, currencyCode: 'GBP' },
        _links: { payment: { href: links['payments:events']?.href } },
      },
    });
    expect(new Set(hook.received.map((r) => r.body.eventId)).size).toBe(4);
  });

  it('queues the events a clock advance causes before the advance answers', async () => {
    const hook = await receiver();
    const sim = testSimulator({ now: START, frozen: true, webhookUrl: hook.url });
    await sale(sim, saleBody());
    await sim.flushWebhooks();
    await advance(sim, 'P1D');
    // No flush yet: the advance has answered, and the settled event is already in the delivery log.
    expect(sim.webhooks().map((d) => d.type)).toEqual(['sentForSettlement', 'settled']);
  });

  it('retries a receiver that fails twice: 3 attempts, delivered once, nothing lost or duplicated', async () => {
    const hook = await receiver([500, 503]);
    const sim = testSimulator({ now: START, frozen: true, webhookUrl: hook.url });
    const links: Links = (await sale(sim, saleBody())).body._links;
    await post(sim, links['payments:refund']?.href ?? '');
    await sim.flushWebhooks();
    const log = sim.webhooks();
    expect(log.map((d) => [d.type, d.attempts, d.state, d.lastStatus])).toEqual([
      ['sentForSettlement', 3, 'delivered', 204],
      ['sentForRefund', 1, 'delivered', 204],
    ]);
    expect(hook.received.map((r) => [r.status, r.body.eventDetails.type])).toEqual([
      [500, 'sentForSettlement'],
      [503, 'sentForSettlement'],
      [204, 'sentForSettlement'],
      [204, 'sentForRefund'],
    ]);
    expect(delivered(hook.received).map((r) => r.body.eventId)).toEqual(log.map((d) => d.eventId));
  });

  it('carries the refusal of a scripted refund failure', async () => {
    const hook = await receiver();
    const sim = testSimulator({ now: START, frozen: true, webhookUrl: hook.url, scenarios: [scenarioFile('refund-failed.yaml')] });
    const links: Links = (await sale(sim, saleBody())).body._links;
    await post(sim, links['payments:refund']?.href ?? '');
    await advance(sim, 'P1D');
    await sim.flushWebhooks();
    const failed = hook.received.find((r) => r.body.eventDetails.type === 'refundFailed');
    expect(failed?.body.eventDetails.refund).toEqual({ refusal: { code: '57', description: 'ILLEGAL TRANSACTION' } });
    expect(hook.received.map((r) => r.body.eventDetails.type)).toEqual(['sentForSettlement', 'sentForRefund', 'settled', 'refundFailed']);
  });

  it('never holds an API answer for a receiver that does not answer', async () => {
    const hook = await receiver([], true);
    const sim = testSimulator({ webhookUrl: hook.url });
    const started = performance.now();
    const res = await sale(sim, saleBody(plainCard()));
    expect(res.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(sim.webhooks({ state: 'pending' })).toHaveLength(1);
  });

  it('sends nothing without a webhook URL', async () => {
    const sim = testSimulator();
    await sale(sim, saleBody());
    expect(sim.webhooks()).toEqual([]);
  });
});

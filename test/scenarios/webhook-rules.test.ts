/**
 * Scenario rules on `operation: webhook` (contract 4.4, decision 0056): `duplicate`, `reorder`, `delay` on the
 * virtual clock and `drop`, matched by `type` and `transactionReference` and counted like every rule, observed at
 * a real HTTP receiver and in the delivery log. Runs on both stores (the HTTP suite).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { sale, saleBody, SALE_RESPONSE } from '../support/sale.js';
import { HOST, handlerOf, pathOf, testSimulator } from '../support/sim.js';

interface Received {
  eventId: string;
  type: string;
  reference: string;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real receiver that answers 204 and notes every delivery, in the order they arrive. */
async function receiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { eventId: string; eventDetails: { type: string; transactionReference: string } };
      received.push({ eventId: parsed.eventId, type: parsed.eventDetails.type, reference: parsed.eventDetails.transactionReference, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

const rule = (id: string, when: Record<string, unknown>, then: Record<string, unknown>) => ({ name: id, rules: [{ id, when: { operation: 'webhook', ...when }, then }] });
const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });
const soldAs = async (sim: Simulator, reference: string): Promise<Record<string, { href: string }>> => {
  const res = await sale(sim, saleBody(undefined, { transactionReference: reference }));
  expect(res.status).toBe(201);
  return res.body._links as Record<string, { href: string }>;
};
const seen = (r: Received[]) => r.map((x) => [x.type, x.reference]);
const logOf = (sim: Simulator) => sim.webhooks().map((d) => [d.type, d.state, d.rule]);

async function started(scenario: object): Promise<{ sim: Simulator; hook: Awaited<ReturnType<typeof receiver>> }> {
  const hook = await receiver();
  return { sim: testSimulator({ webhookUrl: hook.url, scenarios: [scenario] }), hook };
}

describe('duplicate', () => {
  it('delivers the matched event n extra times with the same eventId and body, each delivery with an id of its own', async () => {
    const { sim, hook } = await started(rule('twice-more', { type: 'sentForSettlement' }, { duplicate: 2 }));
    await soldAs(sim, 'order-1');
    expect(await sim.flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'order-1'], ['sentForSettlement', 'order-1'], ['sentForSettlement', 'order-1']]);
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    const log = sim.webhooks();
    expect(log.map((d) => [d.eventId, d.state, d.rule])).toEqual(Array(3).fill([hook.received[0]?.eventId, 'delivered', 'twice-more']));
    expect(new Set(log.map((d) => d.id)).size).toBe(3);
    // Another type goes once.
    await advance(sim, 'P1D');
    await sim.flushWebhooks();
    expect(seen(hook.received).slice(3)).toEqual([['settled', 'order-1']]);
  });
});

describe('reorder', () => {
  it('holds the event until the payment’s next event is delivered, then delivers it right after; a flush does not wait for it', async () => {
    const { sim, hook } = await started(rule('late-first', { type: 'sentForSettlement' }, { reorder: true }));
    await soldAs(sim, 'order-1');
    expect(await sim.flushWebhooks({ timeoutMs: 1000 })).toEqual({ flushed: true, pending: 0 });
    expect(hook.received).toEqual([]);
    expect(logOf(sim)).toEqual([['sentForSettlement', 'held', 'late-first']]);
    expect(sim.webhooks({ state: 'held' })).toHaveLength(1);
    await advance(sim, 'P1D');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['settled', 'order-1'], ['sentForSettlement', 'order-1']]);
    // The held entry of the log is the one delivered.
    expect(logOf(sim)).toEqual([
      ['sentForSettlement', 'delivered', 'late-first'],
      ['settled', 'delivered', null],
    ]);
  });

  it('waits for that payment’s next event only, and follows a next event that is itself delayed', async () => {
    const scenario = {
      name: 'mixed',
      rules: [
        { id: 'reorder-sent', when: { operation: 'webhook', type: 'sentForSettlement', transactionReference: 'order-1' }, then: { reorder: true } },
        { id: 'delay-refund', when: { operation: 'webhook', type: 'sentForRefund' }, then: { delay: 'PT1H' } },
      ],
    };
    const { sim, hook } = await started(scenario);
    const links = await soldAs(sim, 'order-1');
    await soldAs(sim, 'order-2');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'order-2']]);
    const refund = await request(handlerOf(sim)).post(pathOf(links['payments:refund']?.href ?? '')).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE).send();
    expect(refund.status).toBe(202);
    await sim.flushWebhooks();
    expect(hook.received).toHaveLength(1);
    await advance(sim, 'PT1H');
    await sim.flushWebhooks();
    expect(seen(hook.received).slice(1)).toEqual([['sentForRefund', 'order-1'], ['sentForSettlement', 'order-1']]);
  });
});

describe('delay', () => {
  it('holds the event until the tenant’s virtual clock reaches its time plus the delay, then delivers it', async () => {
    const { sim, hook } = await started(rule('two-hours', { type: 'sentForSettlement' }, { delay: 'PT2H' }));
    await soldAs(sim, 'order-1');
    await sim.flushWebhooks();
    await advance(sim, 'PT1H59M');
    await sim.flushWebhooks();
    expect(hook.received).toEqual([]);
    expect(logOf(sim)).toEqual([['sentForSettlement', 'held', 'two-hours']]);
    await advance(sim, 'PT1M');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'order-1']]);
    expect(logOf(sim)).toEqual([['sentForSettlement', 'delivered', 'two-hours']]);
  });

  it('delivers in virtual-time order within one advance: the delayed event before a later event of the same move', async () => {
    const { sim, hook } = await started(rule('two-hours', { type: 'sentForSettlement' }, { delay: 'PT2H' }));
    await soldAs(sim, 'order-1');
    await advance(sim, 'P2D');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'order-1'], ['settled', 'order-1']]);
  });

  it('follows a tenant’s own clock, and a reset drops what is held', async () => {
    const hook = await receiver();
    const sim = testSimulator({ webhookUrl: hook.url, users: ['alice:pa'], scenarios: [rule('one-hour', {}, { delay: 'PT1H' })] });
    await soldAs(sim, 'order-1');
    await sale(sim, saleBody(undefined, { transactionReference: 'alice-1' }), 'alice', 'pa');
    sim.tenant('alice').clock.advance('PT1H');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'alice-1']]);
    sim.reset('merchant');
    await soldAs(sim, 'order-2');
    sim.clock.advance('P2D');
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'alice-1'], ['sentForSettlement', 'order-2'], ['settled', 'order-2']]);
  });
});

describe('drop', () => {
  it('never delivers the event, and logs it dropped', async () => {
    const { sim, hook } = await started(rule('lost-settlement', { type: 'settled', transactionReference: 'order-2' }, { drop: true }));
    await soldAs(sim, 'order-1');
    await soldAs(sim, 'order-2');
    await advance(sim, 'P1D');
    expect(await sim.flushWebhooks()).toEqual({ flushed: true, pending: 0 });
    expect(seen(hook.received).sort()).toEqual([['sentForSettlement', 'order-1'], ['sentForSettlement', 'order-2'], ['settled', 'order-1']]);
    expect(sim.webhooks({ state: 'dropped' }).map((d) => [d.type, d.rule, d.attempts, d.finishedAt !== null])).toEqual([['settled', 'lost-settlement', 0, true]]);
  });
});

describe('counting', () => {
  it('counts webhooks per rule and tenant with nth and times', async () => {
    const { sim, hook } = await started({
      name: 'counted',
      rules: [
        { id: 'second-dropped', when: { operation: 'webhook', nth: 2 }, then: { drop: true } },
        { id: 'first-doubled', when: { operation: 'webhook', times: 1 }, then: { duplicate: 1 } },
      ],
    });
    for (const reference of ['order-1', 'order-2', 'order-3']) await soldAs(sim, reference);
    await sim.flushWebhooks();
    expect(seen(hook.received)).toEqual([['sentForSettlement', 'order-1'], ['sentForSettlement', 'order-1'], ['sentForSettlement', 'order-3']]);
    expect(logOf(sim)).toEqual([
      ['sentForSettlement', 'delivered', 'first-doubled'],
      ['sentForSettlement', 'delivered', 'first-doubled'],
      ['sentForSettlement', 'dropped', 'second-dropped'],
      ['sentForSettlement', 'delivered', null],
    ]);
  });

  it('leaves API rules alone: a rule without an operation never sees a webhook, and does not count one', async () => {
    const hook = await receiver();
    const sim = testSimulator({ webhookUrl: hook.url, scenarios: [{ name: 'second', rules: [{ id: 'second-fails', when: { nth: 2 }, then: { error: { status: 500, errorName: 'internalErrorOccurred' } } }] }] });
    expect((await sale(sim, saleBody(undefined, { transactionReference: 'a' }))).status).toBe(201);
    expect((await sale(sim, saleBody(undefined, { transactionReference: 'b' }))).status).toBe(500);
    await sim.flushWebhooks();
    expect(logOf(sim)).toEqual([['sentForSettlement', 'delivered', null]]);
  });

  it('gives deliveries ids that a seed repeats', async () => {
    const hook = await receiver();
    const ids = async (): Promise<string[]> => {
      const sim = testSimulator({ webhookUrl: hook.url, seed: 'same', scenarios: [rule('dup', {}, { duplicate: 1 })] });
      await soldAs(sim, 'order-1');
      await sim.flushWebhooks();
      return sim.webhooks().map((d) => d.id);
    };
    const first = await ids();
    expect(first).toHaveLength(2);
    for (const id of first) expect(id).toMatch(/^[0-9A-Z]{16}$/);
    expect(await ids()).toEqual(first);
  });
});

describe('validation', () => {
  const problems = async (rules: object[]) => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/scenarios').send({ name: 'x', rules });
    expect(res.status).toBe(400);
    return (res.body as { validationErrors: { errorName: string; jsonPath: string; message: string }[] }).validationErrors.map((v) => [v.jsonPath, v.errorName, v.message]);
  };

  it.each([
    ['a predicate webhooks do not take', { when: { operation: 'webhook', entity: 'default' }, then: { drop: true } }, ['$.rules[0].when.entity', 'fieldHasInvalidValue', 'entity is not a predicate of operation: webhook rules, which take type, transactionReference, nth, every, times, chance, between']],
    ['an amount on a webhook', { when: { operation: 'webhook', amount: 5 }, then: { drop: true } }, ['$.rules[0].when.amount', 'fieldHasInvalidValue', expect.stringContaining('amount is not a predicate of operation: webhook rules')]],
    ['outcome on a webhook', { when: { operation: 'webhook' }, then: { outcome: { outcome: 'refused' } } }, ['$.rules[0].then.outcome', 'fieldHasInvalidValue', 'outcome applies to sales only, and this rule matches webhook']],
    ['error on a webhook', { when: { operation: 'webhook' }, then: { error: { status: 500, errorName: 'x' } } }, ['$.rules[0].then.error', 'fieldHasInvalidValue', 'error applies to API requests, and this rule matches webhook']],
    ['delayMs on a webhook', { when: { operation: 'webhook' }, then: { delayMs: 10 } }, ['$.rules[0].then.delayMs', 'fieldHasInvalidValue', 'delayMs applies to API requests, and this rule matches webhook: a webhook takes delay, an ISO 8601 duration on the virtual clock']],
    ['duplicate on an API operation', { when: { operation: 'sale' }, then: { duplicate: 1 } }, ['$.rules[0].then.duplicate', 'fieldHasInvalidValue', 'duplicate applies to operation: webhook only']],
    ['drop without an operation', { then: { drop: true } }, ['$.rules[0].then.drop', 'fieldHasInvalidValue', 'drop applies to operation: webhook only']],
    ['type on an API operation', { when: { operation: 'sale', type: 'settled' }, then: { delayMs: 1 } }, ['$.rules[0].when.type', 'fieldHasInvalidValue', 'type is the event type of operation: webhook rules only']],
    ['drop with another action', { when: { operation: 'webhook' }, then: { drop: true, duplicate: 1 } }, ['$.rules[0].then.drop', 'fieldHasInvalidValue', 'drop cannot be combined with duplicate, reorder or delay: a dropped event is never delivered']],
    ['reorder with delay', { when: { operation: 'webhook' }, then: { reorder: true, delay: 'PT1H' } }, ['$.rules[0].then.delay', 'fieldHasInvalidValue', 'delay cannot be combined with reorder: a delivery waits for the clock or for the next event, not both']],
    ['an unknown event type', { when: { operation: 'webhook', type: 'setled' }, then: { drop: true } }, ['$.rules[0].when.type', 'fieldHasInvalidValue', expect.stringContaining("; did you mean 'settled'?")]],
    ['duplicate of 0', { when: { operation: 'webhook' }, then: { duplicate: 0 } }, ['$.rules[0].then.duplicate', 'integerIsTooSmall', 'duplicate must be a whole number of extra deliveries from 1 to 10']],
    ['duplicate of 11', { when: { operation: 'webhook' }, then: { duplicate: 11 } }, ['$.rules[0].then.duplicate', 'integerIsTooLarge', 'duplicate must be a whole number of extra deliveries from 1 to 10']],
    ['a delay that is not a duration', { when: { operation: 'webhook' }, then: { delay: '2 hours' } }, ['$.rules[0].then.delay', 'fieldHasInvalidValue', 'delay must be a positive ISO 8601 duration such as PT1H or P1D (on the virtual clock)']],
    ['a zero delay', { when: { operation: 'webhook' }, then: { delay: 'PT0S' } }, ['$.rules[0].then.delay', 'fieldHasInvalidValue', 'delay must be a positive ISO 8601 duration such as PT1H or P1D (on the virtual clock)']],
    ['reorder: false', { when: { operation: 'webhook' }, then: { reorder: false } }, ['$.rules[0].then.reorder', 'fieldHasInvalidValue', 'reorder must be true (leave it out otherwise)']],
  ])('refuses %s at its JSONPath', async (_what, body, expected) => {
    expect(await problems([body])).toEqual([expected]);
  });

  it.each(['sentForSettlement', 'settled', 'settlementFailed', 'cancelled', 'sentForRefund', 'refundFailed', 'refused'])('takes type %s', async (type) => {
    const res = await request(handlerOf(testSimulator())).put('/_sim/scenarios').send(rule('ok', { type, transactionReference: 'r', every: 2, between: { from: '2030-01-01' } }, { duplicate: 1, delay: 'P1D' }));
    expect(res.status).toBe(200);
  });
});

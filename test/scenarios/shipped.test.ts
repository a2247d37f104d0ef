/** Every shipped scenario file, loaded as a user would, observed over HTTP. */
import { describe, expect, it } from '@jest/globals';
import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createIdSource } from '../../src/infra/ids.js';
import { createScenarioEngine } from '../../src/scenarios/engine.js';
import { loadScenarioFile } from '../../src/scenarios/loader.js';
import type { Simulator } from '../../src/index.js';
import { SALE_RESPONSE, plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, client, createBody, createToken, pathOf, scenarioFile, testSimulator, handlerOf } from '../support/sim.js';

const withScenario = (name: string, options = {}): Simulator => testSimulator({ scenarios: [scenarioFile(name)], ...options });
const withAmount = (amount: number) => {
  const body = saleBody();
  (body.instruction as { value: { amount: number } }).value.amount = amount;
  return body;
};

describe('shipped scenarios', () => {
  it('outage.yaml: every operation answers 503 serviceUnavailable', async () => {
    const sim = withScenario('outage.yaml');
    const api = client(sim);
    const created = await api.create(createBody());
    expect(created.status).toBe(503);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({ errorName: 'serviceUnavailable', message: expect.any(String) });
    expect((await sale(sim, saleBody())).status).toBe(503);
    expect((await api.get('http://x/tokens/anything')).status).toBe(503);
    expect(sim.requests().map((r) => [r.status, r.rule, r.errorName])).toEqual([
      [503, 'outage', 'serviceUnavailable'],
      [503, 'outage', 'serviceUnavailable'],
      [503, 'outage', 'serviceUnavailable'],
    ]);
  });

  it('outage.yaml still answers 401 to a client without credentials', async () => {
    expect((await request(handlerOf(withScenario('outage.yaml'))).post('/tokens')).status).toBe(401);
  });

  it('slow-network.yaml: answers arrive at least 400 ms late', async () => {
    const sim = withScenario('slow-network.yaml');
    const started = performance.now();
    const res = await client(sim).create(createBody());
    expect(res.status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(395);
    expect(sim.requests()[0]?.rule).toBe('slow');
  });

  it('flaky-sales.yaml: every third sale fails with 500, the others settle', async () => {
    const sim = withScenario('flaky-sales.yaml');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await sale(sim, saleBody())).status);
    expect(statuses).toEqual([201, 201, 500, 201, 201, 500, 201]);
    expect((await client(sim).create(createBody())).status).toBe(201);
  });

  it('flaky-sales.yaml counts each tenant separately', async () => {
    const sim = withScenario('flaky-sales.yaml', { users: ['other:pw'] });
    const statuses = async (user: string, password: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await sale(sim, saleBody(), user, password)).status);
      return out;
    };
    expect(await statuses('merchant', 'secret', 2)).toEqual([201, 201]);
    expect(await statuses('other', 'pw', 2)).toEqual([201, 201]);
    expect(await statuses('merchant', 'secret', 1)).toEqual([500]);
    expect(await statuses('other', 'pw', 1)).toEqual([500]);
  });

  it.each([
    [2004, '4', 'HOLD CARD'],
    [2005, '5', 'REFUSED'],
    [2013, '13', 'INVALID AMOUNT'],
    [2041, '41', 'LOST CARD'],
    [2043, '43', 'STOLEN CARD, PICK UP'],
    [2051, '51', 'LIMIT EXCEEDED'],
    [2055, '55', 'INVALID SECURITY CODE'],
    [2062, '62', 'RESTRICTED CARD'],
    [2076, '76', 'CARD BLOCKED'],
    [3000, '85', 'REJECTED BY CARD ISSUER'],
    [3999, '85', 'REJECTED BY CARD ISSUER'],
  ])('amount-refusals.yaml: %i → refused %s %s', async (amount, code, description) => {
    const res = await sale(withScenario('amount-refusals.yaml'), withAmount(amount));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ outcome: 'refused', refusalCode: code, refusalDescription: description });
    expect(res.body).not.toHaveProperty('issuer');
  });

  it.each([250, 2003, 4000])('amount-refusals.yaml: %i → the usual outcome', async (amount) => {
    const res = await sale(withScenario('amount-refusals.yaml'), withAmount(amount));
    expect(res.body.outcome).toBe('sentForSettlement');
    expect(res.body.issuer.authorizationCode).toEqual(expect.any(String));
  });

  it('preloaded-conflict.yaml: the card is on file, so a differing create gets 409 and the same data 200', async () => {
    const api = client(withScenario('preloaded-conflict.yaml'));
    const conflict = await api.create(createBody({ cardHolderName: 'John Watson' }));
    expect(conflict.status).toBe(409);
    expect(conflict.body.tokenId).toBe('9900000000000000042');
    expect(conflict.body.conflicts.paymentInstrument).toEqual({ cardHolderName: 'John Watson' });
    expect((await api.create(createBody())).status).toBe(200);
  });

  it('live-profile.yaml: tokens live 4 years', async () => {
    const res = await client(withScenario('live-profile.yaml')).create(createBody());
    expect(res.body.tokenExpiryDateTime).toBe('2034-01-01T00:00:00Z');
  });

  it('live-profile.yaml leaves an explicit --token-lifetime alone', async () => {
    const res = await client(withScenario('live-profile.yaml', { tokenLifetime: 'P1D' })).create(createBody());
    expect(res.body.tokenExpiryDateTime).toBe('2030-01-02T00:00:00Z');
  });

  it('first-attempt-refusal.yaml: the first sale is refused, the retry approved', async () => {
    const sim = withScenario('first-attempt-refusal.yaml');
    expect((await sale(sim, saleBody())).body).toMatchObject({ outcome: 'refused', refusalCode: '5', refusalDescription: 'REFUSED' });
    expect((await sale(sim, saleBody())).body.outcome).toBe('sentForSettlement');
    expect((await sale(sim, saleBody())).body.outcome).toBe('sentForSettlement');
  });

  it('card-risk.yaml: scripted risk factors for the named card only', async () => {
    const sim = withScenario('card-risk.yaml');
    const risky = await sale(sim, saleBody(plainCard({ cardNumber: '5555555555554444', billingAddress: { address1: 'a', postalCode: 'AAAA', city: 'c', countryCode: 'GB' } })));
    expect(risky.body.riskFactors).toEqual([
      { risk: 'not_matched', detail: 'address' },
      { risk: 'not_matched', detail: 'postcode' },
    ]);
    const plain = await sale(sim, saleBody(plainCard({ billingAddress: { address1: 'a', postalCode: 'AAAA', city: 'c', countryCode: 'GB' } })));
    expect(plain.body).not.toHaveProperty('riskFactors');
  });

  it('card-risk.yaml matches a token sale by the stored card number', async () => {
    const sim = withScenario('card-risk.yaml');
    const links = await createToken(client(sim), createBody({ cardNumber: '5555555555554444' }));
    const res = await sale(sim, saleBody({ type: 'card/token', href: links['tokens:token'] }));
    expect(res.body.riskFactors).toHaveLength(2);
  });

  it('flaky-provider.yaml: about 2 % of requests answer 503, every answer has a lognormal latency around 120 ms', async () => {
    const [scenario] = loadScenarioFile(scenarioFile('flaky-provider.yaml'));
    const engine = createScenarioEngine(createIdSource(createSecretKey(Buffer.alloc(32, 7))));
    engine.replace(scenario ? [scenario] : []);
    const applied = Array.from({ length: 5000 }, () => engine.match('merchant', { operation: 'sale', username: 'merchant' }, 0));
    const unavailable = applied.filter((a) => a?.label === 'provider-unavailable').length;
    expect(unavailable).toBeGreaterThan(50);
    expect(unavailable).toBeLessThan(150);
    expect(applied.every((a) => a !== undefined)).toBe(true);
    const delays = applied.map((a) => a?.delayMs ?? -1).sort((x, y) => x - y);
    expect(Math.abs((delays[2500] ?? 0) - 120)).toBeLessThanOrEqual(18);

    // Over HTTP: an answer (201 or the scripted 503), late, under one of the two rules.
    const sim = withScenario('flaky-provider.yaml');
    const started = performance.now();
    const res = await client(sim).create(createBody());
    expect(performance.now() - started).toBeGreaterThanOrEqual(5);
    expect([201, 503]).toContain(res.status);
    expect(['provider-unavailable', 'provider-latency']).toContain(sim.requests()[0]?.rule);
  });

  it('unruly-webhooks.yaml: settled twice with one eventId, sentForSettlement after it, cancelled an hour late, sentForRefund never', async () => {
    const received: { eventId: string; type: string; reference: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string; eventDetails: { type: string; transactionReference: string } };
        received.push({ eventId: body.eventId, type: body.eventDetails.type, reference: body.eventDetails.transactionReference });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const sim = withScenario('unruly-webhooks.yaml', { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
      const seen = (from: number) => received.slice(from).map((r) => [r.type, r.reference]);
      const act = (href: string | undefined) => request(handlerOf(sim)).post(pathOf(href ?? '')).auth('merchant', 'secret').set('Host', HOST).set('Accept', SALE_RESPONSE).send();
      const links = async (reference: string) => (await sale(sim, saleBody(undefined, { transactionReference: reference }))).body._links as Record<string, { href: string }>;

      await links('order-settles');
      await sim.flushWebhooks();
      expect(received).toEqual([]);
      sim.clock.advance('P1D');
      await sim.flushWebhooks();
      expect(seen(0)).toEqual([['settled', 'order-settles'], ['settled', 'order-settles'], ['sentForSettlement', 'order-settles']]);
      expect(received[0]?.eventId).toBe(received[1]?.eventId);

      expect((await act((await links('order-reversed'))['payments:reversal']?.href)).status).toBe(202);
      await sim.flushWebhooks();
      expect(seen(3)).toEqual([]);
      sim.clock.advance('PT1H');
      await sim.flushWebhooks();
      expect(seen(3)).toEqual([['cancelled', 'order-reversed'], ['sentForSettlement', 'order-reversed']]);

      expect((await act((await links('order-refunded'))['payments:refund']?.href)).status).toBe(202);
      await sim.flushWebhooks();
      expect(seen(5)).toEqual([['sentForSettlement', 'order-refunded']]);
      expect(sim.webhooks({ state: 'dropped' }).map((d) => [d.type, d.rule])).toEqual([['sentForRefund', 'refund-news-lost']]);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

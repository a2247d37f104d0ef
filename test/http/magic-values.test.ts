/**
 * GET /_sim/magic-values (contract 4.4, decision 0057): every value that changes an outcome, each with what it
 * does, from the tables the simulator runs on. Each name and postal code listed does, in a real sale, what the
 * catalogue says; the cards are the fixtures' BIN table; the amounts are those of the active scenario rules.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { MagicValues, Simulator } from '../../src/index.js';
import { ADDRESS, handlerOf, testSimulator } from '../support/sim.js';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { REFUSALS } from '../support/refusals.js';
import { problemsOf, responseSchema, schemaValidator, type OpenApiDoc } from '../support/openapi-validator.js';

const get = async (sim: Simulator, q = '', auth?: [string, string]): Promise<{ status: number; body: MagicValues & { errorName?: string } }> => {
  const req = request(handlerOf(sim)).get(`/_sim/magic-values${q}`);
  const res = await (auth ? req.auth(...auth) : req);
  return { status: res.status, body: res.body as MagicValues & { errorName?: string } };
};

const amountRule = (id: string, amount: unknown, then: Record<string, unknown>, when: Record<string, unknown> = {}) => ({ id, when: { operation: 'sale', amount, ...when }, then });

describe('GET /_sim/magic-values', () => {
  it('lists the magic card holder names, each doing in a sale what it says', async () => {
    const sim = testSimulator();
    const { status, body } = await get(sim);
    expect(status).toBe(200);
    const names = body.cardHolderNames;
    expect(names.slice(0, 2)).toEqual([
      { value: 'ERROR', outcome: 'error', effect: 'the sale answers 500 internalErrorOccurred and makes no payment' },
      { value: 'REFUSED', outcome: 'refused', refusalCode: '5', refusalDescription: 'REFUSED', effect: 'refused, refusalCode 5 REFUSED' },
    ]);
    expect(names.slice(2, -1).map((n) => [n.value, n.refusalCode, n.refusalDescription])).toEqual(REFUSALS.map(([code, description]) => [`REFUSED${code}`, code, description]));
    expect(names.at(-1)).toEqual({ value: 'REFUSED<n>', outcome: 'refused', effect: 'any other n of 1 to 3 digits: refused, refusalCode n (leading zeros dropped) REFUSED' });
    for (const name of names.slice(0, -1)) {
      const res = await sale(sim, saleBody(plainCard({ cardHolderName: name.value.toLowerCase() }), { transactionReference: `name-${name.value}` }));
      const did = res.status === 500 ? ['error', res.body.errorName] : [res.body.outcome, res.body.refusalCode, res.body.refusalDescription];
      expect([name.value, ...did]).toEqual([name.value, ...(name.outcome === 'error' ? ['error', 'internalErrorOccurred'] : ['refused', name.refusalCode, name.refusalDescription])]);
    }
  });

  it('lists the expired card, and the postal codes, each giving in a sale the risk factors it says', async () => {
    const sim = testSimulator();
    const { body } = await get(sim);
    expect(body.cardExpiryDates).toEqual([
      {
        value: 'a month before the virtual now',
        outcome: 'refused',
        refusalCode: '33',
        refusalDescription: 'CARD EXPIRED',
        effect: "a card/plain sale: refused, refusalCode 33 CARD EXPIRED; a token's stored card: 400 underlyingPaymentInstrumentHasExpired",
      },
    ]);
    expect(body.postalCodes.map((p) => p.value)).toEqual(['AAAA', 'CCCC', 'FFFF', 'JJJJ', 'EEEE', 'HHHH', null]);
    expect(body.postalCodes[3]).toEqual({
      value: 'JJJJ',
      riskFactors: [
        { risk: 'not_matched', detail: 'address' },
        { risk: 'not_matched', detail: 'postcode' },
      ],
      effect: 'riskFactors not_matched address, not_matched postcode',
    });
    for (const p of body.postalCodes) {
      const card = p.value === null ? plainCard() : plainCard({ billingAddress: { ...ADDRESS, postalCode: p.value.toLowerCase() } });
      const res = await sale(sim, saleBody(card, { transactionReference: `postcode-${String(p.value)}` }));
      expect([p.value, res.body.riskFactors ?? []]).toEqual([p.value, p.riskFactors]);
    }
    const expired = await sale(sim, saleBody(plainCard({ cardExpiryDate: { month: 12, year: 2029 } }), { transactionReference: 'expired' }));
    expect([expired.body.outcome, expired.body.refusalCode, expired.body.refusalDescription]).toEqual(['refused', '33', 'CARD EXPIRED']);
  });

  it('lists the fixtures’ BIN table in order, then what a card of no entry is', async () => {
    const bins = [
      { prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' },
      { prefix: '2221-2720', network: 'MASTERCARD', countryCode: 'US', fundingType: 'debit' },
    ];
    const { body } = await get(testSimulator({ fixtures: { credentials: [{ username: 'merchant', password: 'secret', entities: ['default'] }], entities: { default: { currencies: ['GBP'], networks: ['VISA'] } }, bins } }));
    expect(body.cards.map(({ effect: _, ...card }) => card)).toEqual([
      { value: '4', network: 'VISA', brand: 'visa', countryCode: 'GB', fundingType: 'credit' },
      { value: '2221-2720', network: 'MASTERCARD', brand: 'mastercard', countryCode: 'US', fundingType: 'debit' },
      { value: null, network: 'UNKNOWN', brand: 'unknown', countryCode: 'US', fundingType: 'unknown' },
    ]);
    expect(body.cards[1]!.effect).toBe('MASTERCARD (brand mastercard), US, debit; a sale answers 400 paymentInstrumentIsNotSupported where the entity does not accept it');
  });

  it('lists the amounts of the active rules: the tenant’s own set first with ?tenant=, and only rules that do more than delay', async () => {
    const sim = testSimulator({ users: ['bob:pb'] });
    sim.loadScenarios({
      name: 'global-amounts',
      rules: [
        amountRule('big', { min: 3000, max: 3999 }, { outcome: { outcome: 'refused', refusalCode: '85' } }),
        amountRule('slow', 100, { delayMs: 5 }),
        { id: 'no-amount', when: { operation: 'sale' }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } },
        { when: { amount: { min: 10 } }, then: { fault: 'connectionReset', delayMs: 1 } },
      ],
    });
    sim.tenant('bob').loadScenarios({ name: 'bob-amounts', rules: [amountRule('bob-51', 2051, { outcome: { outcome: 'refused', refusalCode: '51' }, riskFactors: [{ risk: 'not_checked', detail: 'address' }] }, { nth: 2 })] });
    const global = [
      { value: { min: 3000, max: 3999 }, operation: 'sale', scenario: 'global-amounts', rule: 'big', set: 'global', alsoWhen: [], effect: 'refused, refusalCode 85 REJECTED BY CARD ISSUER' },
      { value: { min: 10 }, operation: 'any', scenario: 'global-amounts', rule: 'global-amounts#3', set: 'global', alsoWhen: [], effect: 'resets the connection unanswered; after the rule\u2019s delay' },
    ];
    expect((await get(sim)).body.amounts).toEqual(global);
    const bob = (await get(sim, '?tenant=bob')).body.amounts;
    expect(bob).toEqual([
      { value: 2051, operation: 'sale', scenario: 'bob-amounts', rule: 'bob-51', set: 'tenant', alsoWhen: ['nth'], effect: 'refused, refusalCode 51 LIMIT EXCEEDED; riskFactors not_checked address' },
      ...global,
    ]);
    // The tenant's own credentials see its own view; the library answers the same as /_sim.
    expect((await get(sim, '', ['bob', 'pb'])).body.amounts).toEqual(bob);
    expect(sim.magicValues('bob')).toEqual((await get(sim, '?tenant=bob')).body);
    expect(sim.tenant('bob').magicValues()).toEqual((await get(sim, '?tenant=bob')).body);
    expect(sim.magicValues()).toEqual((await get(sim)).body);
  });

  it('refuses an unknown tenant or parameter, and every method but GET', async () => {
    const sim = testSimulator();
    const unknown = await get(sim, '?tenant=nobody');
    expect([unknown.status, unknown.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const param = await get(sim, '?amount=2051');
    expect([param.status, param.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
    const post = await request(handlerOf(sim)).post('/_sim/magic-values').set('Content-Type', 'application/json').send('{}');
    expect([post.status, post.headers.allow]).toEqual([405, 'GET']);
    let refused: unknown;
    try {
      sim.magicValues('nobody');
    } catch (err) {
      refused = err;
    }
    expect(refused).toMatchObject({ name: 'SimulatorError', errorName: 'urlContainsInvalidValue' });
  });
});

describe('GET /_sim/magic-values against the OpenAPI document', () => {
  it('answers what the served document describes, a tenant amount range among them', async () => {
    const sim = testSimulator({ users: ['bob:pb'] });
    const refused = { outcome: { outcome: 'refused', refusalCode: '85' } };
    sim.tenant('bob').loadScenarios({ name: 'amounts', rules: [amountRule('range', { min: 100, max: 200 }, refused), amountRule('one', 4242, refused, { nth: 2 })] });
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as OpenApiDoc;
    const { status, body } = await get(sim, '?tenant=bob');
    expect(status).toBe(200);
    expect(body.amounts.map((a) => a.value)).toEqual([{ min: 100, max: 200 }, 4242]);
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/magic-values', 'get', 200), body)).toEqual([]);
    // The document is strict: a field it does not name is a problem.
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/magic-values', 'get', 200), { ...body, extra: 1 })).not.toEqual([]);
  });
});

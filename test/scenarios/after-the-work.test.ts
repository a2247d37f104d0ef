/**
 * Failure after the work (contract 4.4, issue 26): `then.lostAnswer` does the operation, commits it, then
 * resets the connection, never answers, or answers 500; the journal shows what happened and what the client got.
 * `then.rateLimited` answers 429 with Retry-After and does nothing. The shipped lost-sale-answer.yaml and
 * rate-limited.yaml. Runs on both stores (the "http (redis)" project).
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { HOST, START, client, createBody, handlerOf, scenarioFile, testSimulator } from '../support/sim.js';
import { problemsOf, responseSchema, schemaValidator, type OpenApiDoc } from '../support/openapi-validator.js';

const withRules = (rules: unknown[]): Simulator => {
  const sim = testSimulator({ now: START, frozen: true });
  sim.loadScenarios([{ name: 'test', rules } as never]);
  return sim;
};
const payments = async (sim: Simulator): Promise<{ transactionReference: string }[]> => (await request(handlerOf(sim)).get('/_sim/payments').set('Host', HOST)).body.payments;
const journal = async (sim: Simulator): Promise<Record<string, unknown>[]> => (await request(handlerOf(sim)).get('/_sim/requests?tenant=merchant').set('Host', HOST)).body.requests;

describe('then.lostAnswer', () => {
  it('connectionReset: the sale is made and committed, the connection reset; the retry is refused as a duplicate', async () => {
    const sim = withRules([{ id: 'lose-it', when: { operation: 'sale', nth: 1 }, then: { lostAnswer: 'connectionReset' } }]);
    await expect(sale(sim, saleBody(plainCard(), { transactionReference: 'lost-1' }))).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await payments(sim)).map((p) => p.transactionReference)).toEqual(['lost-1']);
    const retry = await sale(sim, saleBody(plainCard(), { transactionReference: 'lost-1' }));
    expect(retry.status).toBe(400);
    expect(retry.body.errorName).toBe('transactionHasAlreadyBeenProcessed');
    const [lost] = await journal(sim);
    expect(lost).toMatchObject({ operation: 'sale', status: 0, errorName: 'connectionReset', rule: 'lose-it', responseHeaders: {} });
    expect(lost?.lostAnswer).toMatchObject({ as: 'connectionReset', status: 201, body: { outcome: 'sentForSettlement' } });
    // The card number of the lost answer is masked, as every journaled body is.
    expect(JSON.stringify(lost?.lostAnswer)).not.toContain('4444333322221111');
  });

  it('noResponse: the sale is made, and the client waits in vain', async () => {
    const sim = withRules([{ when: { operation: 'sale' }, then: { lostAnswer: 'noResponse' } }]);
    await expect(sale(sim, saleBody(plainCard(), { transactionReference: 'lost-2' })).timeout(300)).rejects.toThrow(/Timeout/);
    expect((await payments(sim)).map((p) => p.transactionReference)).toEqual(['lost-2']);
    const entries = await journal(sim);
    expect(entries[0]).toMatchObject({ status: 0, errorName: 'noResponse', lostAnswer: { as: 'noResponse', status: 201 } });
  });

  it('internalError: the sale is made, and the client gets 500 internalErrorOccurred', async () => {
    const sim = withRules([{ when: { operation: 'sale' }, then: { lostAnswer: 'internalError', outcome: { outcome: 'refused', refusalCode: '51' } } }]);
    const res = await sale(sim, saleBody(plainCard(), { transactionReference: 'lost-3' }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ errorName: 'internalErrorOccurred', message: 'An internal error occurred' });
    expect((await payments(sim)).map((p) => p.transactionReference)).toEqual(['lost-3']);
    expect((await journal(sim))[0]).toMatchObject({ status: 500, errorName: 'internalErrorOccurred', lostAnswer: { as: 'internalError', status: 201, body: { outcome: 'refused', refusalCode: '51' } } });
  });

  it('works on any operation: a token created with its answer lost is there for the retry (200, same token)', async () => {
    const sim = withRules([{ when: { operation: 'createToken', nth: 1 }, then: { lostAnswer: 'internalError' } }]);
    const api = client(sim);
    expect((await api.create(createBody())).status).toBe(500);
    const retry = await api.create(createBody());
    expect(retry.status).toBe(200);
    const lost = (await journal(sim))[0]?.lostAnswer as { status: number; body: { tokenId: string } };
    expect(lost.status).toBe(201);
    expect(retry.body.tokenId).toBe(lost.body.tokenId);
  });

  it('loses nothing when the work fails: a refused duplicate is answered as usual', async () => {
    const sim = withRules([{ when: { operation: 'sale', transactionReference: 'dup' }, then: { lostAnswer: 'connectionReset' } }]);
    expect((await sale(sim, saleBody(plainCard(), { transactionReference: 'other' }))).status).toBe(201);
    const bad = await sale(sim, { ...saleBody(plainCard(), { transactionReference: 'dup' }), merchant: { entity: 'nowhere' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errorName).toBe('entityIsNotConfigured');
  });

  it('is refused with error, fault or rateLimited, at the second of them', async () => {
    const res = await request(handlerOf(testSimulator()))
      .put('/_sim/scenarios')
      .set('Host', HOST)
      .send({ name: 'x', rules: [{ then: { fault: 'noResponse', lostAnswer: 'noResponse' } }] });
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([{ errorName: 'fieldHasInvalidValue', message: 'lostAnswer cannot be combined with fault', jsonPath: '$.rules[0].then.lostAnswer' }]);
    const unknown = await request(handlerOf(testSimulator())).put('/_sim/scenarios').set('Host', HOST).send({ name: 'x', rules: [{ then: { lostAnswer: 'lost' } }] });
    expect(unknown.body.validationErrors[0]).toMatchObject({ errorName: 'fieldHasInvalidValue', jsonPath: '$.rules[0].then.lostAnswer' });
  });
});

describe('then.rateLimited', () => {
  it('answers 429 tooManyRequests with Retry-After, and does nothing', async () => {
    const sim = withRules([{ id: 'slow-down', when: { operation: 'sale' }, then: { rateLimited: { retryAfter: 7 } } }]);
    const res = await sale(sim, saleBody(plainCard(), { transactionReference: 'rl-1' }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.body).toEqual({ errorName: 'tooManyRequests', message: 'Too many requests: retry after 7 seconds' });
    expect(await payments(sim)).toEqual([]);
    expect((await journal(sim))[0]).toMatchObject({ status: 429, errorName: 'tooManyRequests', rule: 'slow-down', responseHeaders: { 'Retry-After': '7' } });
  });

  it('refuses a Retry-After that is not a whole number of seconds from 0 to 86400, with its JSONPath', async () => {
    const put = (retryAfter: unknown) => request(handlerOf(testSimulator())).put('/_sim/scenarios').set('Host', HOST).send({ name: 'x', rules: [{ then: { rateLimited: { retryAfter } } }] });
    for (const [value, errorName] of [[-1, 'integerIsTooSmall'], [86_401, 'integerIsTooLarge'], [1.5, 'fieldMustBeInteger'], ['2', 'fieldMustBeInteger']] as const) {
      const res = await put(value);
      expect(res.status).toBe(400);
      expect(res.body.validationErrors[0]).toMatchObject({ errorName, jsonPath: '$.rules[0].then.rateLimited.retryAfter' });
    }
  });
});

describe('the shipped scenarios', () => {
  it('lost-sale-answer.yaml: the first sale is made and its answer lost; the retry is a duplicate; the next sale goes through', async () => {
    const sim = testSimulator({ now: START, frozen: true, scenarios: [scenarioFile('lost-sale-answer.yaml')] });
    await expect(sale(sim, saleBody(plainCard(), { transactionReference: 'order-a' }))).rejects.toThrow();
    expect((await sale(sim, saleBody(plainCard(), { transactionReference: 'order-a' }))).body.errorName).toBe('transactionHasAlreadyBeenProcessed');
    expect((await sale(sim, saleBody(plainCard(), { transactionReference: 'order-b' }))).status).toBe(201);
  });

  it('rate-limited.yaml: every fourth request answers 429 with Retry-After 2', async () => {
    const sim = testSimulator({ now: START, frozen: true, scenarios: [scenarioFile('rate-limited.yaml')] });
    const api = client(sim);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await api.get('http://x/tokens/none')).status);
    expect(statuses).toEqual([400, 400, 400, 429, 400, 400, 400, 429]);
  });
});

describe('the journal against the OpenAPI document', () => {
  it('lists entries the served document describes: a lost answer, a JSON body, a text body, an unauthenticated and an unknown request', async () => {
    const sim = withRules([{ id: 'lose-it', when: { operation: 'sale', nth: 1 }, then: { lostAnswer: 'internalError' } }]);
    expect((await sale(sim, saleBody(plainCard(), { transactionReference: 'lost-doc' }))).status).toBe(500);
    await client(sim).create(createBody());
    await request(handlerOf(sim)).post('/tokens').set('Host', HOST).set('Authorization', `Basic ${Buffer.from('merchant:secret').toString('base64')}`).set('Content-Type', 'application/vnd.service.tokens-v1.hal+json').set('Accept', 'application/vnd.service.tokens-v1.hal+json').send('not json');
    await request(handlerOf(sim)).get('/tokens').set('Host', HOST);
    await request(handlerOf(sim)).get('/nowhere?x=1').set('Host', HOST);
    const answer = await request(handlerOf(sim)).get('/_sim/requests').set('Host', HOST);
    const entries = answer.body.requests as Record<string, unknown>[];
    expect(entries.map((e) => [e.operation, e.status])).toEqual([
      ['sale', 500],
      ['createToken', 201],
      ['createToken', 400],
      ['queryTokens', 401],
      ['unknown', 404],
    ]);
    expect(entries[0]?.lostAnswer).toMatchObject({ as: 'internalError', status: 201 });
    expect(entries[2]?.requestText).toBe('not json');
    expect(entries[3]?.tenant).toBeNull();
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json').set('Host', HOST)).body as OpenApiDoc;
    const schema = responseSchema(doc, '/_sim/requests', 'get', 200);
    expect(problemsOf(schemaValidator(doc), schema, answer.body)).toEqual([]);
    // The document is precise: an entry with a field it does not name, or a status it does not allow, is a problem.
    expect(problemsOf(schemaValidator(doc), schema, { ...answer.body, requests: [{ ...entries[1], extra: 1 }] })).not.toEqual([]);
    expect(problemsOf(schemaValidator(doc), schema, { ...answer.body, requests: [{ ...entries[1], operation: 'teleport' }] })).not.toEqual([]);
  });
});

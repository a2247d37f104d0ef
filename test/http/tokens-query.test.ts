/**
 * GET /tokens?namespace=&tokenId= (contract 3.3, decision 0031): the tenant's live tokens as GET of each answers
 * them, oldest first; refusals of a query without a parameter; never a use; headers, HEAD, 405, journal and
 * scenarios.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { HOST, TOKEN_TYPE, client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const FIXTURES = {
  credentials: [
    { username: 'merchant', password: 'secret', entities: ['default', 'second'] },
    { username: 'other', password: 'pw', entities: ['default'] },
  ],
  entities: {
    default: { currencies: ['GBP'], networks: ['VISA', 'MASTERCARD'] },
    second: { currencies: ['GBP'], networks: ['VISA', 'MASTERCARD'] },
  },
  bins: [
    { prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' },
    { prefix: '5', network: 'MASTERCARD', countryCode: 'US', fundingType: 'debit' },
  ],
};

const query = (sim: Simulator, q: string, user = 'merchant', password = 'secret') =>
  request(handlerOf(sim)).get(`/tokens${q}`).auth(user, password).set('Accept', TOKEN_TYPE).set('Host', HOST);
const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });

interface TokenBody {
  tokenId: string;
  tokenExpiryDateTime: string;
  _links: Record<string, { href: string }>;
}
const tokensOf = (body: unknown): TokenBody[] => (body as { _embedded: { tokens: TokenBody[] } })._embedded.tokens;

describe('GET /tokens?namespace=', () => {
  it('answers the tenant’s live tokens of the namespace under every entity, oldest first, each as GET answers it', async () => {
    const sim = testSimulator({ fixtures: FIXTURES });
    const api = client(sim);
    const first = await createToken(api, createBody({}, { namespace: 'shopper-1' }));
    await advance(sim, 'PT1H');
    const second = await createToken(api, createBody({ cardNumber: '5555555555554444' }, { namespace: 'shopper-1', merchant: { entity: 'second' } }));
    await advance(sim, 'PT1H');
    await createToken(api, createBody({ cardNumber: '4111111111111111' }, { namespace: 'shopper-2' }));
    await createToken(api, createBody({ cardNumber: '4012888888881881' }));
    await createToken(client(sim, 'other', 'pw'), createBody({}, { namespace: 'shopper-1' }));
    const third = await createToken(api, createBody({}, { namespace: 'shopper-1', merchant: { entity: 'second' } }));

    const res = await query(sim, '?namespace=shopper-1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TOKEN_TYPE);
    expect(Object.keys(res.body as object)).toEqual(['_embedded']);
    const tokens = tokensOf(res.body);
    expect(tokens.map((t) => t._links['tokens:token']!.href)).toEqual([first, second, third].map((l) => l['tokens:token']));
    // Exactly the representation GET of each token answers (its HAL links, the networkToken link and all).
    for (const [i, links] of [first, second, third].entries()) {
      const got = await api.get(links['tokens:token']!);
      expect(tokens[i]).toEqual(got.body);
      expect(JSON.stringify(tokens[i])).toBe(got.text);
    }
  });

  it('answers an empty list for a namespace with no live token: unknown, another tenant’s, deleted or expired', async () => {
    const sim = testSimulator({ users: ['other:pw'] });
    const api = client(sim);
    await createToken(client(sim, 'other', 'pw'), createBody({}, { namespace: 'theirs' }));
    const deleted = await createToken(api, createBody({}, { namespace: 'deleted' }));
    expect((await api.delete(deleted['tokens:token']!)).status).toBe(204);
    await createToken(api, createBody({ cardNumber: '4111111111111111' }, { namespace: 'expiring' }));
    await advance(sim, 'P7D');
    for (const namespace of ['nobody', 'theirs', 'deleted', 'expiring']) {
      const res = await query(sim, `?namespace=${namespace}`);
      expect([namespace, res.status, res.body]).toEqual([namespace, 200, { _embedded: { tokens: [] } }]);
    }
  });

  it('is not a use: a query past the half-life moves no expiry, where a GET extends it', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api, createBody({}, { namespace: 'shopper-1' }));
    const tokenId = (await api.get(links['tokens:token']!)).body.tokenId as string;
    await advance(sim, 'P5D');
    expect(tokensOf((await query(sim, '?namespace=shopper-1')).body)[0]!.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
    expect(tokensOf((await query(sim, `?tokenId=${tokenId}`)).body)[0]!.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
    expect(tokensOf((await query(sim, '?namespace=shopper-1')).body)[0]!.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
    expect((await api.get(links['tokens:token']!)).body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
    expect(tokensOf((await query(sim, '?namespace=shopper-1')).body)[0]!.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
  });
});

describe('GET /tokens?tokenId=', () => {
  it('answers the token with that id, or an empty list for an unknown, deleted or another tenant’s id', async () => {
    const sim = testSimulator({ users: ['other:pw'] });
    const api = client(sim);
    const links = await createToken(api);
    const got = await api.get(links['tokens:token']!);
    const tokenId = got.body.tokenId as string;
    const res = await query(sim, `?tokenId=${tokenId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ _embedded: { tokens: [got.body] } });
    expect((await query(sim, `?tokenId=${tokenId}`, 'other', 'pw')).body).toEqual({ _embedded: { tokens: [] } });
    expect((await query(sim, '?tokenId=9912345678901234567')).body).toEqual({ _embedded: { tokens: [] } });
    expect((await query(sim, '?tokenId=not-an-id')).body).toEqual({ _embedded: { tokens: [] } });
    expect((await api.delete(links['tokens:token']!)).status).toBe(204);
    expect((await query(sim, `?tokenId=${tokenId}`)).body).toEqual({ _embedded: { tokens: [] } });
  });

  it('with a namespace as well, answers the token only when it matches both', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api, createBody({}, { namespace: 'shopper-1' }));
    const tokenId = (await api.get(links['tokens:token']!)).body.tokenId as string;
    expect(tokensOf((await query(sim, `?namespace=shopper-1&tokenId=${tokenId}`)).body)).toHaveLength(1);
    expect(tokensOf((await query(sim, `?tokenId=${tokenId}&namespace=shopper-2`)).body)).toEqual([]);
  });

  it('ignores parameters it does not know', async () => {
    const sim = testSimulator();
    const api = client(sim);
    await createToken(api, createBody({}, { namespace: 'shopper-1' }));
    const res = await query(sim, '?namespace=shopper-1&page=2&_=1700000000');
    expect(res.status).toBe(200);
    expect(tokensOf(res.body)).toHaveLength(1);
  });
});

describe('GET /tokens refusals', () => {
  const missing = { errorName: 'fieldIsMissing', message: 'namespace or tokenId is required' };
  it.each([
    ['', [missing]],
    ['?', [missing]],
    ['?page=2', [missing]],
    ['?Namespace=shopper-1', [missing]],
    ['?namespace=', [{ errorName: 'fieldIsEmpty', message: 'namespace must not be empty' }]],
    ['?tokenId=', [{ errorName: 'fieldIsEmpty', message: 'tokenId must not be empty' }]],
    ['?namespace=a&tokenId=', [{ errorName: 'fieldIsEmpty', message: 'tokenId must not be empty' }]],
    ['?namespace=a&namespace=b', [{ errorName: 'fieldHasInvalidValue', message: 'namespace must be given once' }]],
    [
      '?namespace=&tokenId=1&tokenId=2',
      [
        { errorName: 'fieldIsEmpty', message: 'namespace must not be empty' },
        { errorName: 'fieldHasInvalidValue', message: 'tokenId must be given once' },
      ],
    ],
  ])('answers 400 urlContainsInvalidValue for GET /tokens%s', async (q, validationErrors) => {
    const res = await query(testSimulator(), q);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'urlContainsInvalidValue', message: 'The query of GET /tokens is not valid', validationErrors });
  });

  it('checks credentials, then Accept, as GET of a token does', async () => {
    const sim = testSimulator();
    const noAuth = await request(handlerOf(sim)).get('/tokens?namespace=a').set('Accept', TOKEN_TYPE);
    expect([noAuth.status, noAuth.body.errorName, noAuth.headers['www-authenticate']]).toEqual([401, 'accessDenied', 'Basic realm="token-sim"']);
    const noAccept = await request(handlerOf(sim)).get('/tokens').auth('merchant', 'secret');
    expect(noAccept.status).toBe(400);
    expect(noAccept.body).toMatchObject({ errorName: 'headerIsMissing', headerName: 'Accept' });
    const otherType = await request(handlerOf(sim)).get('/tokens?namespace=a').auth('merchant', 'secret').set('Accept', 'application/vnd.service.payments-v5+json');
    expect(otherType.status).toBe(406);
    expect(otherType.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Accept' });
    const anyType = await request(handlerOf(sim)).get('/tokens?namespace=a').auth('merchant', 'secret').set('Accept', '*/*');
    expect(anyType.status).toBe(200);
    const withCharset = await request(handlerOf(sim)).get('/tokens?namespace=a').auth('merchant', 'secret').set('Accept', `${TOKEN_TYPE}; charset=utf-8`);
    expect(withCharset.status).toBe(200);
  });

  it('answers HEAD like GET, without a body', async () => {
    const sim = testSimulator();
    await createToken(client(sim), createBody({}, { namespace: 'shopper-1' }));
    const res = await request(handlerOf(sim)).head('/tokens?namespace=shopper-1').auth('merchant', 'secret').set('Accept', TOKEN_TYPE);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TOKEN_TYPE);
    expect(res.text ?? '').toBe('');
    const refused = await request(handlerOf(sim)).head('/tokens').auth('merchant', 'secret').set('Accept', TOKEN_TYPE);
    expect(refused.status).toBe(400);
  });

  it.each(['put', 'delete', 'patch'] as const)('answers 405 for %s /tokens, allowing GET and POST', async (method) => {
    const res = await request(handlerOf(testSimulator()))[method]('/tokens').auth('merchant', 'secret');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.body.errorName).toBe('methodNotAllowed');
  });
});

describe('GET /tokens in the journal and in scenarios', () => {
  it('journals a query as the queryTokens operation, with its query', async () => {
    const sim = testSimulator();
    await query(sim, '?namespace=shopper-1');
    await query(sim, '');
    expect(sim.requests({ operation: 'queryTokens' }).map((e) => [e.method, e.path, e.query, e.status, e.errorName])).toEqual([
      ['GET', '/tokens', 'namespace=shopper-1', 200, undefined],
      ['GET', '/tokens', undefined, 400, 'urlContainsInvalidValue'],
    ]);
  });

  it('lets a scenario rule match operation queryTokens and the namespace asked for', async () => {
    const sim = testSimulator({
      scenarios: [
        {
          name: 'listing-outage',
          rules: [{ id: 'busy', when: { operation: 'queryTokens', namespace: 'shopper-9' }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }],
        },
      ],
    });
    const hit = await query(sim, '?namespace=shopper-9');
    expect(hit.status).toBe(503);
    expect(hit.body.errorName).toBe('serviceUnavailable');
    expect((await query(sim, '?namespace=shopper-1')).status).toBe(200);
    expect(sim.requests({ operation: 'queryTokens' }).map((e) => e.rule)).toEqual(['busy', null]);
  });

  it('lets a scenario rule match the queried token’s card, looked at without being used', async () => {
    const sim = testSimulator({
      scenarios: [{ name: 's', rules: [{ id: 'broken', when: { operation: 'queryTokens', cardNumber: '4444333322221111' }, then: { error: { status: 500, errorName: 'internalErrorOccurred' } } }] }],
    });
    const api = client(sim);
    const links = await createToken(api);
    const tokenId = (await api.get(links['tokens:token']!)).body.tokenId as string;
    expect((await query(sim, `?tokenId=${tokenId}`)).status).toBe(500);
    expect((await query(sim, '?tokenId=9912345678901234567')).status).toBe(200);
  });
});

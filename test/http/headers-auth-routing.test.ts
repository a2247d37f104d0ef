import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { HOST, TOKEN_TYPE, client, createBody, createToken, testSimulator, handlerOf } from '../support/sim.js';

const sim = testSimulator({ users: ['other:pw'] });
const body = JSON.stringify(createBody());

function post(headers: Record<string, string>, auth = true): request.Test {
  let t = request(handlerOf(sim)).post('/tokens').set('Host', HOST);
  if (auth) t = t.auth('merchant', 'secret');
  for (const [k, v] of Object.entries(headers)) t = t.set(k, v);
  return t.send(body);
}

describe('authentication', () => {
  it.each([
    ['no credentials', (t: request.Test) => t],
    ['a wrong password', (t: request.Test) => t.auth('merchant', 'wrong')],
    ['an unknown user', (t: request.Test) => t.auth('nobody', 'secret')],
    ['a malformed header', (t: request.Test) => t.set('Authorization', 'Basic !!!not-base64')],
    ['another scheme', (t: request.Test) => t.set('Authorization', 'Bearer abc')],
  ])('answers 401 accessDenied with a Basic challenge for %s', async (_name, withAuth) => {
    const res = await withAuth(request(handlerOf(sim)).post('/tokens').set('Content-Type', TOKEN_TYPE).set('Accept', TOKEN_TYPE)).send(body);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="token-sim"');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'accessDenied', message: expect.any(String) });
  });

  it('checks authentication before headers and body', async () => {
    const res = await request(handlerOf(sim)).post('/tokens').send('not json');
    expect(res.status).toBe(401);
  });

  it('authenticates users added with --user', async () => {
    const res = await client(sim, 'other', 'pw').create(createBody({ cardNumber: '5555555555554444' }));
    expect(res.status).toBe(201);
  });
});

describe('headers', () => {
  it('answers 400 headerIsMissing for a body without Content-Type', async () => {
    const res = await request(handlerOf(sim)).post('/tokens').auth('merchant', 'secret').set('Accept', TOKEN_TYPE).send(Buffer.from(body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorName: 'headerIsMissing', message: expect.any(String), headerName: 'Content-Type' });
  });

  it.each(['application/json', 'application/vnd.service.tokens-v2.hal+json', 'text/plain'])(
    'answers 415 headerHasInvalidValue for Content-Type %s',
    async (type) => {
      const res = await post({ 'Content-Type': type, Accept: TOKEN_TYPE });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Content-Type' });
    },
  );

  it('answers 400 headerIsMissing without Accept', async () => {
    const res = await post({ 'Content-Type': TOKEN_TYPE });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorName: 'headerIsMissing', headerName: 'Accept' });
  });

  it.each(['application/json', 'application/vnd.service.tokens-v2.hal+json', `${TOKEN_TYPE};q=0`])(
    'answers 406 headerHasInvalidValue for Accept %s',
    async (accept) => {
      const res = await post({ 'Content-Type': TOKEN_TYPE, Accept: accept });
      expect(res.status).toBe(406);
      expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Accept' });
    },
  );

  it.each(['*/*', 'application/*', `text/html, ${TOKEN_TYPE};q=0.5`, `${TOKEN_TYPE}; charset=utf-8`])(
    'accepts Accept %s',
    async (accept) => {
      const res = await post({ 'Content-Type': `${TOKEN_TYPE}; charset=utf-8`, Accept: accept });
      expect([200, 201]).toContain(res.status);
    },
  );

  it('checks Content-Type before Accept, and headers before the body', async () => {
    const res = await request(handlerOf(sim)).post('/tokens').auth('merchant', 'secret').set('Content-Type', 'text/plain').send('not json');
    expect(res.status).toBe(415);
  });

  it('requires Accept on GET and DELETE too', async () => {
    const api = client(sim);
    const links = await createToken(api, createBody({ cardNumber: '4111111111111111' }));
    const res = await request(handlerOf(sim)).get(new URL(links['tokens:token']!).pathname).auth('merchant', 'secret');
    expect(res.body).toMatchObject({ errorName: 'headerIsMissing', headerName: 'Accept' });
    const del = await request(handlerOf(sim)).delete(new URL(links['tokens:token']!).pathname).auth('merchant', 'secret');
    expect(del.body).toMatchObject({ errorName: 'headerIsMissing', headerName: 'Accept' });
  });

  it('puts a Correlation-Id, nosniff and no-store on every response and no X-Powered-By', async () => {
    for (const res of [await post({}, false), await post({ 'Content-Type': TOKEN_TYPE, Accept: TOKEN_TYPE }), await request(handlerOf(sim)).get('/nowhere')]) {
      expect(res.headers['correlation-id']).toBeTruthy();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('echoes a sane Correlation-Id sent by the client', async () => {
    const res = await request(handlerOf(sim)).get('/_sim/health').set('Correlation-Id', 'client-abc-123');
    expect(res.headers['correlation-id']).toBe('client-abc-123');
  });
});

describe('routing', () => {
  it('answers 404 endpointNotFound for an unknown path', async () => {
    const res = await request(handlerOf(sim)).get('/payments/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errorName: 'endpointNotFound', message: expect.any(String) });
  });

  // GET /tokens is the token query (decision 0031).
  it.each(['put', 'delete', 'patch'] as const)('answers 405 methodNotAllowed for %s /tokens', async (method) => {
    const res = await request(handlerOf(sim))[method]('/tokens').auth('merchant', 'secret');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.body.errorName).toBe('methodNotAllowed');
  });

  it('answers 405 for POST on a token ref', async () => {
    const api = client(sim);
    const links = await createToken(api, createBody({ cardNumber: '378282246310005' }));
    const res = await request(handlerOf(sim)).post(new URL(links['tokens:token']!).pathname).auth('merchant', 'secret');
    expect(res.status).toBe(405);
  });

  it('answers 404 endpointNotFound for the network token link, which is not simulated', async () => {
    const res = await request(handlerOf(sim)).get('/tokens/network').auth('merchant', 'secret').set('Accept', TOKEN_TYPE);
    expect(res.status).toBe(404);
    expect(res.body.errorName).toBe('endpointNotFound');
  });

  it('never answers with HTML or a stack trace for a malformed URL', async () => {
    const res = await request(handlerOf(sim)).get('/tokens/%E0%A4%A').auth('merchant', 'secret').set('Accept', TOKEN_TYPE);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).not.toMatch(/<html|at \w+ \(/i);
  });
});

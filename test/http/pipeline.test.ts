/** The request pipeline: fresh representations, the journal's tenant, bugs as 500s, users at scale. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator } from '../../src/simulator/compose.js';
import { START, TOKEN_TYPE, client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

describe('the request pipeline', () => {
  it('answers a GET after a PUT with the new value, not a representation kept from before', async () => {
    const api = client(testSimulator());
    const links = await createToken(api);
    expect((await api.get(links['tokens:token']!)).body.description).toBe('Card ending 1111');
    expect((await api.put(links['tokens:description']!, 'Second card')).status).toBe(204);
    expect((await api.get(links['tokens:token']!)).body.description).toBe('Second card');
    expect((await api.put(links['tokens:cardHolderName']!, 'John Watson')).status).toBe(204);
    expect((await api.get(links['tokens:token']!)).body.paymentInstrument.cardHolderName).toBe('John Watson');
  });

  it('journals a refused login with no tenant, even when the username exists', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).get('/tokens/abc').auth('merchant', 'wrong').set('Accept', TOKEN_TYPE);
    expect(res.status).toBe(401);
    expect(sim.requests()).toEqual([expect.objectContaining({ tenant: null, status: 401, errorName: 'accessDenied', operation: 'getToken' })]);
  });

  it.each([
    ['a create (after reading the body)', 'create' as const],
    ['a read (without a body)', 'get' as const],
  ])('answers a bug in %s with the standard 500 body, reports it, and journals it', async (_name, method) => {
    const reported: string[] = [];
    const sim = createSimulator({ seed: 'test', now: START, frozen: true }, { writeErr: (line) => reported.push(line) });
    const api = client(sim);
    const links = await createToken(api);
    sim.vault[method] = () => {
      throw new TypeError('a bug in the vault');
    };
    const res = method === 'create' ? await api.create(createBody({ cardNumber: '4111111111111111' })) : await api.get(links['tokens:token']!);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'internalErrorOccurred', message: 'An unexpected error occurred in the simulator' });
    expect(reported).toEqual([expect.stringContaining('token-sim: unexpected error: TypeError: a bug in the vault')]);
    expect(sim.requests().at(-1)).toMatchObject({ status: 500, errorName: 'internalErrorOccurred' });
  });

  it('authenticates the last of 10,000 configured users, and refuses a wrong password or an unknown user', async () => {
    const credentials = Array.from({ length: 10_000 }, (_, i) => ({ username: `suite-${i}`, password: `pw-${i}`, entities: ['default'] }));
    const sim = testSimulator({
      fixtures: {
        credentials,
        entities: { default: { currencies: ['GBP'], networks: ['VISA'] } },
        bins: [{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }],
      },
    });
    const get = (user: string, password: string) => request(handlerOf(sim)).get('/tokens/network').auth(user, password).set('Accept', TOKEN_TYPE);
    // Past authentication and the header checks, /tokens/network answers 404 endpointNotFound.
    expect((await get('suite-9999', 'pw-9999')).status).toBe(404);
    expect((await get('suite-0', 'pw-0')).status).toBe(404);
    expect((await get('suite-9999', 'pw-9998')).status).toBe(401);
    expect((await get('suite-10000', 'pw-10000')).status).toBe(401);
  });

  it('answers a scripted delay late, and journals it with its rule once answered', async () => {
    const sim = testSimulator({ scenarios: [{ name: 'late', rules: [{ id: 'slow-read', when: { operation: 'getToken' }, then: { delayMs: 30 } }] }] });
    const api = client(sim);
    const links = await createToken(api);
    const started = performance.now();
    const res = await api.get(links['tokens:token']!);
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(sim.requests().at(-1)).toMatchObject({ operation: 'getToken', status: 200, rule: 'slow-read' });
  });
});

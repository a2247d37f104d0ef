import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DEFAULT_FIXTURES_PATH, loadFixturesFile } from '../../src/config/fixtures.js';
import type { Simulator } from '../../src/index.js';
import { plainCard, sale, saleBody } from '../support/sale.js';
import { ADDRESS, HOST, TOKEN_TYPE, client, createBody, createToken, testSimulator, handlerOf } from '../support/sim.js';

const sim2 = (options = {}) => testSimulator({ users: ['alice:pa', 'bob:pb'], ...options });
const alice = (sim: Simulator) => client(sim, 'alice', 'pa');
const bob = (sim: Simulator) => client(sim, 'bob', 'pb');
const control = (sim: Simulator) => request(handlerOf(sim));

describe('tenant isolation', () => {
  it('keeps two tenants’ tokens, journals and clocks apart, and a reset of one leaves the other untouched', async () => {
    const sim = sim2();
    const a = await createToken(alice(sim));
    const b = await createToken(bob(sim), createBody({ cardNumber: '5555555555554444' }));

    const tokensOf = async (tenant: string) => ((await control(sim).get(`/_sim/tokens?tenant=${tenant}`)).body.tokens as { tokenId: string; tenant: string }[]);
    expect((await tokensOf('alice')).map((t) => t.tenant)).toEqual(['alice']);
    expect((await tokensOf('bob')).map((t) => t.tenant)).toEqual(['bob']);

    const journalOf = async (tenant: string) => (await control(sim).get(`/_sim/requests?tenant=${tenant}`)).body.requests as { tenant: string }[];
    expect((await journalOf('alice')).every((e) => e.tenant === 'alice')).toBe(true);
    expect(await journalOf('alice')).toHaveLength(1);

    // Alice's clock forks and runs 8 days ahead: her token expires, Bob's does not.
    expect((await control(sim).post('/_sim/clock/advance?tenant=alice').send({ by: 'P8D' })).body.now).toBe('2030-01-09T00:00:00Z');
    expect((await control(sim).get('/_sim/clock?tenant=alice')).body.now).toBe('2030-01-09T00:00:00Z');
    expect((await control(sim).get('/_sim/clock?tenant=bob')).body.now).toBe('2030-01-01T00:00:00Z');
    expect((await control(sim).get('/_sim/clock')).body.now).toBe('2030-01-01T00:00:00Z');
    expect((await alice(sim).get(a['tokens:token']!)).status).toBe(404);
    expect((await bob(sim).get(b['tokens:token']!)).status).toBe(200);

    // Resetting Bob leaves Alice's journal alone.
    const aliceJournal = await journalOf('alice');
    expect((await control(sim).post('/_sim/reset?tenant=bob')).status).toBe(204);
    expect(await tokensOf('bob')).toEqual([]);
    expect(await journalOf('bob')).toEqual([]);
    expect(await journalOf('alice')).toEqual(aliceJournal);
  });

  it('moves the shared clock when no tenant is named, and a fork only by calls naming its tenant', async () => {
    const sim = sim2();
    await control(sim).post('/_sim/clock/advance?tenant=alice').send({ by: 'P1D' });
    await control(sim).post('/_sim/clock/advance').send({ by: 'P3D' });
    await control(sim).put('/_sim/clock').send({ now: '2030-02-01T00:00:00Z' });
    expect((await control(sim).get('/_sim/clock?tenant=alice')).body.now).toBe('2030-01-02T00:00:00Z');
    expect((await control(sim).get('/_sim/clock?tenant=bob')).body.now).toBe('2030-02-01T00:00:00Z');
  });

  it('never brings an expired token back when a clock is set back, seen by a request or not', async () => {
    const sim = sim2();
    const seen = await createToken(alice(sim));
    const unseen = await createToken(alice(sim), createBody({ cardNumber: '5555555555554444' }));
    await control(sim).post('/_sim/clock/advance').send({ by: 'P8D' });
    expect((await alice(sim).get(seen['tokens:token']!)).status).toBe(404);
    await control(sim).put('/_sim/clock').send({ now: '2030-01-02T00:00:00Z' });
    expect((await alice(sim).get(seen['tokens:token']!)).status).toBe(404);
    expect((await alice(sim).get(unseen['tokens:token']!)).status).toBe(404);
    expect((await alice(sim).create(createBody({ cardNumber: '5555555555554444' }))).status).toBe(201);
  });

  it('sets one tenant’s clock only', async () => {
    const sim = sim2();
    await control(sim).put('/_sim/clock?tenant=bob').send({ now: '2031-01-01T00:00:00Z' });
    expect((await control(sim).get('/_sim/clock?tenant=bob')).body.now).toBe('2031-01-01T00:00:00Z');
    expect((await control(sim).get('/_sim/clock?tenant=alice')).body.now).toBe('2030-01-01T00:00:00Z');
  });

  it('resets every tenant without ?tenant=, keeping configuration', async () => {
    const sim = sim2();
    await createToken(alice(sim));
    await createToken(bob(sim));
    expect((await control(sim).post('/_sim/reset')).status).toBe(204);
    expect((await control(sim).get('/_sim/tokens')).body.tokens).toEqual([]);
    expect((await control(sim).get('/_sim/requests')).body.requests).toEqual([]);
    expect((await alice(sim).create(createBody())).status).toBe(201);
  });

  it.each(['/_sim/tokens?tenant=alice&tenant=bob', '/_sim/clock?tenant=nobody', '/_sim/requests?tenant='])('refuses %s: tenant must name one configured username', async (path) => {
    const res = await control(sim2()).get(path);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('urlContainsInvalidValue');
  });
});

describe('the request journal', () => {
  it('records method, path, status, operation, tenant, correlation id, times, rule and duration', async () => {
    const sim = testSimulator();
    const res = await client(sim).create(createBody());
    const [entry] = (await control(sim).get('/_sim/requests')).body.requests;
    expect(entry).toEqual({
      seq: 1,
      tenant: 'merchant',
      operation: 'createToken',
      method: 'POST',
      path: '/tokens',
      status: 201,
      correlationId: res.headers['correlation-id'],
      virtualTime: '2030-01-01T00:00:00Z',
      realTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      durationMs: expect.any(Number),
      rule: null,
      requestHeaders: { Host: HOST, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE, 'Content-Length': String(JSON.stringify(createBody()).length) },
      requestBody: expect.objectContaining({ paymentInstrument: expect.objectContaining({ cardNumber: '4444********1111' }) }),
      responseHeaders: {
        'Correlation-Id': res.headers['correlation-id'],
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        Location: res.headers.location,
        Accept: TOKEN_TYPE,
        'Content-Type': TOKEN_TYPE,
        'Content-Length': res.headers['content-length'],
      },
      // The answer as sent (its card number was masked by the API itself).
      responseBody: res.body,
    });
  });

  it('names each operation and records error names', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api);
    await api.get(links['tokens:token']!);
    await api.put(links['tokens:description']!, 'x');
    await sale(sim, saleBody({ type: 'card/token', href: links['tokens:token'] }));
    await api.delete(links['tokens:token']!);
    await api.get(links['tokens:token']!);
    await request(handlerOf(sim)).get('/tokens/abc');
    const entries = (await control(sim).get('/_sim/requests')).body.requests as { operation: string; status: number; errorName?: string; tenant: string | null }[];
    expect(entries.map((e) => [e.operation, e.status, e.errorName ?? null, e.tenant])).toEqual([
      ['createToken', 201, null, 'merchant'],
      ['getToken', 200, null, 'merchant'],
      ['updateToken', 204, null, 'merchant'],
      ['sale', 201, null, 'merchant'],
      ['deleteToken', 204, null, 'merchant'],
      ['getToken', 404, 'resourceNotFound', 'merchant'],
      ['getToken', 401, 'accessDenied', null],
    ]);
  });

  it('is bounded by journalSize per tenant and can be cleared', async () => {
    const sim = testSimulator({ journalSize: 2 });
    for (let i = 0; i < 5; i++) await request(handlerOf(sim)).get('/nowhere').auth('merchant', 'secret');
    expect((await control(sim).get('/_sim/requests')).body.requests).toHaveLength(2);
    expect((await control(sim).delete('/_sim/requests')).status).toBe(204);
    expect((await control(sim).get('/_sim/requests')).body.requests).toEqual([]);
  });

  it('does not journal the control API itself', async () => {
    const sim = testSimulator();
    await control(sim).get('/_sim/clock');
    expect((await control(sim).get('/_sim/requests')).body.requests).toEqual([]);
  });

  it('holds no full card number or CVC after creates, updates and sales', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const cards = ['4444333322221111', '5555555555554444', '378282246310005'];
    for (const cardNumber of cards) {
      const links = await createToken(api, createBody({ cardNumber, billingAddress: ADDRESS }, { description: `card ${cardNumber}` }));
      await sale(sim, saleBody({ type: 'card/token', href: links['tokens:token'], cvc: '9876' }));
      await api.put(links['tokens:cardHolderName']!, `Holder of ${cardNumber}`);
    }
    await sale(sim, saleBody(plainCard({ cardNumber: '6011111111111117', cvc: '4321' })));
    await sale(sim, saleBody(plainCard({ cardNumber: '4111111111111111', cvc: '555' }), { transactionReference: 'ref 4111111111111111' }));
    await api.create(createBody({ cardNumber: '4012888888881882' })); // Luhn-invalid: a 400, still masked by key
    const text = JSON.stringify((await control(sim).get('/_sim/requests')).body);
    for (const n of [...cards, '6011111111111117', '4111111111111111', '4012888888881882']) expect(text).not.toContain(n);
    for (const cvc of ['9876', '4321', '"555"']) expect(text).not.toContain(cvc);
    expect(text).toContain('"cvc":"***"');
  });
});

describe('GET /_sim/tokens', () => {
  it('lists live tokens, masked, with their tenant and links', async () => {
    const sim = testSimulator();
    await createToken(client(sim), createBody({}, { namespace: 'n1' }));
    const res = await request(handlerOf(sim)).get('/_sim/tokens').set('Host', HOST);
    expect(res.status).toBe(200);
    expect(res.body.tokens).toHaveLength(1);
    expect(res.body.tokens[0]).toMatchObject({ tenant: 'merchant', namespace: 'n1', paymentInstrument: { cardNumber: '4444********1111' } });
    expect(res.body.tokens[0].tokenPaymentInstrument.href).toMatch(/^http:\/\/token-sim\.localhost\/tokens\//);
    expect(JSON.stringify(res.body)).not.toContain('4444333322221111');
  });
});

describe('state snapshots', () => {
  it('export → reset → import restores tokens that GET finds at the same hrefs', async () => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api, createBody({ billingAddress: ADDRESS }, { namespace: 'n1', schemeTransactionReference: 'REF 1' }));
    const conflict = await api.create(createBody({ cardHolderName: 'Other Name', billingAddress: ADDRESS }, { namespace: 'n1' }));
    const before = (await api.get(links['tokens:token']!)).body;
    await control(sim).post('/_sim/clock/advance').send({ by: 'PT1M' });

    const state = (await control(sim).get('/_sim/state')).body;
    expect(JSON.stringify(state)).not.toContain('4444333322221111');
    await control(sim).post('/_sim/reset');
    expect((await api.get(links['tokens:token']!)).status).toBe(404);

    expect((await control(sim).put('/_sim/state').send(state)).status).toBe(204);
    const after = await api.get(links['tokens:token']!);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before);
    expect((await control(sim).get('/_sim/clock')).body.now).toBe('2030-01-01T00:01:00Z');
    expect((await api.get(conflict.body._links['tokens:conflicts'].href)).body.conflicts.paymentInstrument).toEqual({ cardHolderName: 'Other Name' });
    expect((await api.create(createBody({ billingAddress: ADDRESS }, { namespace: 'n1', schemeTransactionReference: 'REF 1' }))).status).toBe(200);
  });

  it('imports into a new simulator with the same seed, with its clocks and id counters', async () => {
    const first = testSimulator({ users: ['alice:pa'] });
    await createToken(client(first));
    await control(first).post('/_sim/clock/advance?tenant=alice').send({ by: 'P2D' });
    const state = first.exportState();
    const nextId = (await client(first).create(createBody({ cardNumber: '5555555555554444' }))).body.tokenId;

    const second = testSimulator({ users: ['alice:pa'] });
    second.importState(state);
    expect(second.clock.now('alice')).toBe('2030-01-03T00:00:00Z');
    expect((await client(second).create(createBody({ cardNumber: '5555555555554444' }))).body.tokenId).toBe(nextId);
  });

  it('leaves expired tokens out of a snapshot', async () => {
    const sim = testSimulator();
    await createToken(client(sim));
    await control(sim).post('/_sim/clock/advance').send({ by: 'P7D' });
    expect(sim.exportState().tokens).toEqual([]);
  });

  it('replaces the state: tokens created after the export are gone', async () => {
    const sim = testSimulator();
    const state = sim.exportState();
    const links = await createToken(client(sim));
    sim.importState(state);
    expect((await client(sim).get(links['tokens:token']!)).status).toBe(404);
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the cases spoil arbitrary JSON on purpose
  type Spoilable = Record<string, any>;
  it.each<[string, (s: Spoilable) => void, string]>([
    ['a wrong format', (s) => (s.format = 'other'), '$.format'],
    ['a missing clock', (s) => delete s.clock, '$.clock'],
    ['a bad token id', (s) => (s.tokens[0].tokenId = 'abc'), '$.tokens[0].tokenId'],
    ['a bad expiry', (s) => (s.tokens[0].expiresAt = 'soon'), '$.tokens[0].expiresAt'],
    ['a tampered card number', (s) => (s.tokens[0].sealedCardNumber = `${s.tokens[0].sealedCardNumber.slice(0, -2)}AA`), '$.tokens[0].sealedCardNumber'],
    ['a repeated token', (s) => s.tokens.push(structuredClone(s.tokens[0])), '$.tokens[1].tokenId'],
  ])('refuses %s with its JSONPath and changes nothing', async (_name, spoil, jsonPath) => {
    const sim = testSimulator();
    const links = await createToken(client(sim));
    const state = sim.exportState() as unknown as Spoilable;
    spoil(state);
    await createToken(client(sim), createBody({ cardNumber: '5555555555554444' }));
    const res = await control(sim).put('/_sim/state').send(state);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors.map((v: { jsonPath: string }) => v.jsonPath)).toContain(jsonPath);
    expect((await control(sim).get('/_sim/tokens')).body.tokens).toHaveLength(2);
    expect((await client(sim).get(links['tokens:token']!)).status).toBe(200);
  });

  it('refuses a snapshot sealed under another seed', async () => {
    const other = testSimulator({ seed: 'other' });
    await createToken(client(other));
    expect(() => testSimulator().importState(other.exportState())).toThrow(/sealedCardNumber/);
  });

  it('refuses a body that is not JSON', async () => {
    const res = await control(testSimulator()).put('/_sim/state').set('Content-Type', 'application/json').send('{');
    expect(res.body.errorName).toBe('bodyIsNotJson');
  });
});

describe('--admin-token', () => {
  const sim = testSimulator({ adminToken: 's3cret' });

  // Right Basic credentials open the tenant's own control plane (issue 13, decision 0026: tenant-control-plane.test.ts).
  it.each([
    ['no Authorization', undefined, 'Bearer realm="token-sim"'],
    ['a wrong token', 'Bearer nope', 'Bearer realm="token-sim"'],
    ['wrong Basic credentials', `Basic ${Buffer.from('merchant:wrong').toString('base64')}`, 'Basic realm="token-sim"'],
  ])('answers 401 accessDenied to %s', async (_name, authorization, challenge) => {
    let t = request(handlerOf(sim)).get('/_sim/clock');
    if (authorization) t = t.set('Authorization', authorization);
    const res = await t;
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(challenge);
    expect(res.body.errorName).toBe('accessDenied');
  });

  it('keeps health open for readiness probes', async () => {
    expect((await request(handlerOf(testSimulator({ adminToken: 's3cret' }))).get('/_sim/health')).status).toBe(200);
  });

  it('lets the right Bearer token through, and leaves the token API on Basic auth', async () => {
    expect((await request(handlerOf(sim)).get('/_sim/clock').set('Authorization', 'Bearer s3cret')).status).toBe(200);
    expect((await client(sim).create(createBody())).status).toBe(201);
  });
});

describe('fixtures', () => {
  const withTokens = () => {
    const f = loadFixturesFile(DEFAULT_FIXTURES_PATH);
    f.credentials.push({ username: 'shop', password: 'pw', entities: ['default'] });
    f.tokens = [
      { ...createBody({ cardHolderName: 'Preloaded' }), tokenId: '9900000000000000001' } as never,
      { ...createBody({ cardNumber: '5555555555554444' }), username: 'shop', tokenId: 'ABC123DEF456GHJ' } as never,
    ];
    return f;
  };

  it('preloads tokens with their fixed ids, which a create of the same card finds', async () => {
    const sim = testSimulator({ fixtures: withTokens() });
    const res = await client(sim).create(createBody({ cardHolderName: 'Preloaded' }));
    expect(res.status).toBe(200);
    expect(res.body.tokenId).toBe('9900000000000000001');
    const shop = await client(sim, 'shop', 'pw').create(createBody({ cardNumber: '5555555555554444' }));
    expect(shop.body.tokenId).toBe('ABC123DEF456GHJ');
  });

  it('puts preloaded tokens back after a reset', async () => {
    const sim = testSimulator({ fixtures: withTokens() });
    await control(sim).post('/_sim/reset');
    expect(((await control(sim).get('/_sim/tokens')).body.tokens as { tokenId: string }[]).map((t) => t.tokenId)).toEqual(['9900000000000000001', 'ABC123DEF456GHJ']);
  });

  it('refuses fixtures whose token is invalid, naming it', () => {
    const f = withTokens();
    (f.tokens![0] as { paymentInstrument: { cardNumber: string } }).paymentInstrument.cardNumber = '4444333322221112';
    expect(() => testSimulator({ fixtures: f })).toThrow(/\$\.tokens\[0\]\.paymentInstrument\.cardNumber/);
  });

  it('refuses fixtures whose token the vault refuses', () => {
    const f = withTokens();
    (f.tokens![1] as { tokenId: string }).tokenId = '9900000000000000001';
    delete (f.tokens![1] as { username?: string }).username;
    expect(() => testSimulator({ fixtures: f })).toThrow(/\$\.tokens\[1\]/);
  });
});

describe('a /_sim error on the wire', () => {
  it('carries its own Content-Length, not a chunked body (an unknown tenant, a wrong admin token, a body too large)', async () => {
    const sim = testSimulator({ adminToken: 'adm1n' });
    const answers = [
      await control(sim).get('/_sim/tokens?tenant=nobody').set('Authorization', 'Bearer adm1n'),
      await control(sim).get('/_sim/clock').set('Authorization', 'Bearer wrong'),
      await control(sim).put('/_sim/scenarios').set('Authorization', 'Bearer adm1n').set('Content-Type', 'application/json').send(`{"name":"x","rules":[],"pad":"${'x'.repeat(1100 * 1024)}"}`),
    ];
    expect(answers.map((res) => res.status)).toEqual([400, 401, 413]);
    for (const res of answers) {
      expect(res.headers['transfer-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
      expect(res.headers['content-type']).toBe('application/json');
    }
  });
});

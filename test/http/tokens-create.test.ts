import { describe, expect, it } from '@jest/globals';
import { ADDRESS, TOKEN_TYPE, client, createBody, testSimulator, handlerOf } from '../support/sim.js';

describe('POST /tokens', () => {
  it('answers 201 with the token, Location, Accept and the token media type', async () => {
    const api = client(testSimulator());
    const res = await api.create(createBody({ billingAddress: ADDRESS }, { namespace: 'shopper-1' }));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(TOKEN_TYPE);
    expect(res.headers.accept).toBe(TOKEN_TYPE);
    expect(res.headers.location).toBe(res.body.tokenPaymentInstrument.href);
    expect(res.headers['correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({
      tokenPaymentInstrument: { type: 'card/tokenized' },
      description: 'Card ending 1111',
      tokenExpiryDateTime: '2030-01-08T00:00:00Z',
      namespace: 'shopper-1',
      paymentInstrument: {
        type: 'card/masked',
        cardNumber: '4444********1111',
        cardExpiryDate: { month: 5, year: 2035 },
        cardHolderName: 'Sherlock Holmes',
        billingAddress: ADDRESS,
        networkType: 'VISA',
        last4Digits: '1111',
        countryCode: 'GB',
        credit: null,
      },
    });
    expect(res.body.tokenId).toMatch(/^99[0-9]{17}$/);
    expect(res.body).not.toHaveProperty('conflicts');
    expect(res.body._links).not.toHaveProperty('tokens:conflicts');
    expect(res.body._links).not.toHaveProperty('tokens:networkToken');
  });

  it('links every per-field update address, each distinct, and the curies', async () => {
    const res = await client(testSimulator()).create(createBody());
    const links = res.body._links as Record<string, { href: string }>;
    const rels = ['tokens:token', 'tokens:description', 'tokens:cardHolderName', 'tokens:cardExpiryDate', 'tokens:billingAddress', 'tokens:schemeTransactionReference'];
    expect(Object.keys(links).sort()).toEqual([...rels, 'curies'].sort());
    const hrefs = rels.map((r) => links[r]!.href);
    for (const href of hrefs) expect(href).toMatch(/^http:\/\/token-sim\.localhost\/tokens\/[A-Za-z0-9_-]+$/);
    expect(new Set(hrefs).size).toBe(rels.length);
    expect(res.body._links.curies).toEqual([{ href: expect.stringMatching(/\/rels\/tokens\/\{rel\}\.json$/), name: 'tokens', templated: true }]);
  });

  it('keeps a supplied description, expiry and scheme transaction reference', async () => {
    const res = await client(testSimulator()).create(
      createBody({}, { description: 'Work card', tokenExpiryDateTime: '2030-03-01T12:00:00+01:00', schemeTransactionReference: 'ABC 123' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: 'Work card', tokenExpiryDateTime: '2030-03-01T11:00:00Z', schemeTransactionReference: 'ABC 123' });
  });

  it('answers 200 with the same token for the same card and data, without the 201-only fields', async () => {
    const api = client(testSimulator());
    const first = await api.create(createBody());
    const again = await api.create(createBody({}, { description: 'ignored' }));
    expect(again.status).toBe(200);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.accept).toBe(TOKEN_TYPE);
    expect(again.body.tokenId).toBe(first.body.tokenId);
    expect(again.body.description).toBe('Card ending 1111');
    expect(again.body.paymentInstrument).not.toHaveProperty('credit');
    expect(again.body.paymentInstrument).not.toHaveProperty('countryCode');
  });

  it('answers a repeated create of a card on file with the token as it is now, after an update and after an extension', async () => {
    const sim = testSimulator({ frozen: true });
    const api = client(sim);
    const created = await api.create(createBody());
    const first = await api.create(createBody());
    expect((await api.create(createBody())).text).toBe(first.text);
    expect((await api.put(created.body._links['tokens:description'].href as string, 'Renamed card')).status).toBe(204);
    const renamed = await api.create(createBody());
    expect(renamed.status).toBe(200);
    expect(renamed.body.description).toBe('Renamed card');
    // Past half of its 7-day lifetime, a read extends the token: the next create answer shows the new expiry.
    sim.clock.advance('P4D');
    expect((await api.create(createBody())).body.tokenExpiryDateTime).toBe('2030-01-08T00:00:00Z');
    expect((await api.get(created.body.tokenPaymentInstrument.href as string)).body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
    expect((await api.create(createBody())).body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
  });

  it('answers 409 with only the differing card holder name', async () => {
    const api = client(testSimulator());
    const first = await api.create(createBody());
    const res = await api.create(createBody({ cardHolderName: 'John Watson' }));
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toBe(TOKEN_TYPE);
    expect(res.headers.location).toBe(first.headers.location);
    expect(res.body.paymentInstrument.cardHolderName).toBe('Sherlock Holmes');
    expect(res.body.conflicts).toEqual({
      paymentInstrument: { cardHolderName: 'John Watson' },
      conflictsExpiryDateTime: '2030-01-01T00:30:00Z',
    });
    expect(res.body._links['tokens:conflicts'].href).toMatch(/\/tokens\/[A-Za-z0-9_-]+$/);
  });

  it('answers 409 listing expiry date, billing address and scheme transaction reference when all differ', async () => {
    const api = client(testSimulator());
    await api.create(createBody({ billingAddress: ADDRESS }, { schemeTransactionReference: 'ONE' }));
    const other = { ...ADDRESS, address1: '1 Other Road' };
    const res = await api.create(
      createBody({ cardExpiryDate: { month: 6, year: 2036 }, billingAddress: other }, { schemeTransactionReference: 'TWO' }),
    );
    expect(res.status).toBe(409);
    expect(res.body.conflicts).toEqual({
      paymentInstrument: { cardExpiryDate: { month: 6, year: 2036 }, billingAddress: other },
      schemeTransactionReference: 'TWO',
      conflictsExpiryDateTime: '2030-01-01T00:30:00Z',
    });
    expect(res.body.schemeTransactionReference).toBe('ONE');
  });

  it('ignores unknown fields: not stored, not echoed', async () => {
    const res = await client(testSimulator()).create(createBody({ colour: 'blue' }, { extra: { a: 1 } }));
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toMatch(/colour|extra/);
  });

  it('answers 403 tooManyTokensForNamespace for the 17th card of a namespace', async () => {
    const api = client(testSimulator());
    const luhnCard = (i: number): string => {
      const body = `4000000000${String(i).padStart(5, '0')}`;
      for (let d = 0; d <= 9; d++) {
        const n = body + d;
        let sum = 0;
        for (let k = 0; k < n.length; k++) {
          let v = Number(n[n.length - 1 - k]);
          if (k % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
          sum += v;
        }
        if (sum % 10 === 0) return n;
      }
      throw new Error('unreachable');
    };
    for (let i = 0; i < 16; i++) {
      expect((await api.create(createBody({ cardNumber: luhnCard(i) }, { namespace: 'family' }))).status).toBe(201);
    }
    const res = await api.create(createBody({ cardNumber: luhnCard(16) }, { namespace: 'family' }));
    expect(res.status).toBe(403);
    expect(res.body.errorName).toBe('tooManyTokensForNamespace');
  });

  it('answers 400 entityIsNotConfigured for an entity the credential does not have', async () => {
    const res = await client(testSimulator()).create(createBody({}, { merchant: { entity: 'elsewhere' } }));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body.errorName).toBe('entityIsNotConfigured');
  });

  it('uses --vendor in every media type', async () => {
    const sim = testSimulator({ vendor: 'worldpay' });
    const type = 'application/vnd.worldpay.tokens-v1.hal+json';
    const { default: request } = await import('supertest');
    const res = await request(handlerOf(sim)).post('/tokens').auth('merchant', 'secret').set('Content-Type', type).set('Accept', type).send(JSON.stringify(createBody()));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(type);
    const wrong = await client(sim).create(createBody());
    expect(wrong.status).toBe(415);
  });

  it('builds links on --base-url when given', async () => {
    const res = await client(testSimulator({ baseUrl: 'https://sandbox.example.test/api/' })).create(createBody());
    expect(res.body.tokenPaymentInstrument.href).toMatch(/^https:\/\/sandbox\.example\.test\/api\/tokens\/[A-Za-z0-9_-]+$/);
    expect(res.body._links.curies[0].href).toBe('https://sandbox.example.test/api/rels/tokens/{rel}.json');
  });
});

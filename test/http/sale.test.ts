import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DEFAULT_FIXTURES_PATH, loadFixturesFile } from '../../src/config/fixtures.js';
import type { Simulator } from '../../src/index.js';
import { SALE_PATH, SALE_REQUEST, SALE_RESPONSE, plainCard, sale, saleBody } from '../support/sale.js';
import { ADDRESS, client, createBody, testSimulator, handlerOf } from '../support/sim.js';
import { REFUSALS } from '../support/refusals.js';

const advance = (sim: Simulator, by: string) => request(handlerOf(sim)).post('/_sim/clock/advance').send({ by });

async function tokenHref(sim: Simulator, card: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Promise<string> {
  const res = await client(sim).create(createBody(card, top));
  if (res.status !== 201) throw new Error(res.text);
  return res.body.tokenPaymentInstrument.href as string;
}

describe('POST /payments/sales/migrateCardOnFile with a plain card', () => {
  it('answers 201 sentForSettlement with the whole body (seeded)', async () => {
    const res = await sale(testSimulator({ seed: 'golden' }), saleBody(plainCard({ billingAddress: ADDRESS, cvc: '123' })));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(SALE_RESPONSE);
    expect(res.body).toStrictEqual({
      outcome: 'sentForSettlement',
      issuer: { authorizationCode: expect.stringMatching(/^[0-9A-Z]{6}$/) },
      scheme: { reference: expect.stringMatching(/^[0-9A-Z]+$/) },
      paymentInstrument: {
        type: 'card/plain+masked',
        card: {
          number: { bin: '444433', last4Digits: '1111' },
          paymentAccountReference: expect.stringMatching(/^[0-9A-Z]{29}$/),
          countryCode: 'GB',
          fundingType: 'credit',
          brand: 'visa',
          expiryDate: { month: 5, year: 2035 },
        },
      },
      _links: {
        'payments:refund': { href: expect.stringMatching(/^http:\/\/token-sim\.localhost\/payments\/settlements\/refunds\/full\/[\w-]+$/) },
        'payments:partialRefund': { href: expect.stringMatching(/^http:\/\/token-sim\.localhost\/payments\/settlements\/refunds\/partials\/[\w-]+$/) },
        'payments:reversal': { href: expect.stringMatching(/^http:\/\/token-sim\.localhost\/payments\/sales\/reversals\/[\w-]+$/) },
        'payments:events': { href: expect.stringMatching(/^http:\/\/token-sim\.localhost\/payments\/events\/[\w-]+$/) },
        curies: [{ name: 'payments', href: 'http://token-sim.localhost/rels/payments/{rel}', templated: true }],
      },
    });
    expect(JSON.stringify(res.body)).not.toContain('4444333322221111');
    expect(JSON.stringify(res.body)).not.toContain('123"');
  });

  it('draws authorization code and scheme reference from the seed', async () => {
    const codes = async (seed: string) => {
      const res = await sale(testSimulator({ seed }), saleBody());
      return [res.body.issuer.authorizationCode, res.body.scheme.reference, res.body.paymentInstrument.card.paymentAccountReference];
    };
    expect(await codes('a')).toEqual(await codes('a'));
    expect(await codes('b')).not.toEqual(await codes('a'));
  });

  it('keeps one paymentAccountReference per card number', async () => {
    const sim = testSimulator();
    const par = async (cardNumber: string) => (await sale(sim, saleBody(plainCard({ cardNumber })))).body.paymentInstrument.card.paymentAccountReference;
    const first = await par('4444333322221111');
    expect(await par('4444333322221111')).toBe(first);
    expect(await par('5555555555554444')).not.toBe(first);
  });

  it.each([
    ['5555555555554444', 'mastercard', 'US', 'credit'],
    ['378282246310005', 'amex', 'US', 'credit'],
    ['6011111111111117', 'discover', 'US', 'credit'],
    ['3528000700000000', 'jcb', 'JP', 'credit'],
    ['6759649826438453', 'maestro', 'GB', 'debit'],
    ['36148900647913', 'diners', 'US', 'credit'],
  ])('names %s a %s card from %s (%s)', async (cardNumber, brand, countryCode, fundingType) => {
    const res = await sale(testSimulator(), saleBody(plainCard({ cardNumber })));
    expect(res.body.paymentInstrument.card).toMatchObject({ brand, countryCode, fundingType, number: { bin: cardNumber.slice(0, 6), last4Digits: cardNumber.slice(-4) } });
  });

  it('refuses a plain card that expired before the virtual now with code 33', async () => {
    const res = await sale(testSimulator(), saleBody(plainCard({ cardExpiryDate: { month: 12, year: 2029 } })));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ outcome: 'refused', refusalCode: '33', refusalDescription: 'CARD EXPIRED' });
    expect(res.body).not.toHaveProperty('issuer');
  });

  it('accepts a card in its expiry month', async () => {
    const res = await sale(testSimulator(), saleBody(plainCard({ cardExpiryDate: { month: 1, year: 2030 } })));
    expect(res.body.outcome).toBe('sentForSettlement');
  });
});

describe('sandbox outcomes by card holder name', () => {
  it.each([['REFUSED', '5', 'REFUSED'], ...REFUSALS.map(([code, d]) => [`REFUSED${code}`, code, d])])(
    '%s → refused %s %s',
    async (name, code, description) => {
      const res = await sale(testSimulator(), saleBody(plainCard({ cardHolderName: name })));
      expect(res.status).toBe(201);
      expect(res.body.outcome).toBe('refused');
      expect(res.body.refusalCode).toBe(code);
      expect(res.body.refusalDescription).toBe(description);
      expect(res.body).not.toHaveProperty('issuer');
      expect(res.body.scheme.reference).toEqual(expect.any(String));
    },
  );

  it('ERROR → 500 internalErrorOccurred with the standard body', async () => {
    const res = await sale(testSimulator(), saleBody(plainCard({ cardHolderName: 'ERROR' })));
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'internalErrorOccurred', message: expect.any(String) });
  });

  it('any other name → sentForSettlement', async () => {
    const res = await sale(testSimulator(), saleBody(plainCard({ cardHolderName: 'Irene Adler' })));
    expect(res.body.outcome).toBe('sentForSettlement');
    expect(res.body).not.toHaveProperty('refusalCode');
  });
});

describe('risk factors by billing postal code', () => {
  const both = (risk: string) => [
    { risk, detail: 'address' },
    { risk, detail: 'postcode' },
  ];
  it.each<[string | undefined, unknown[] | undefined]>([
    ['AAAA', undefined],
    ['CCCC', [{ risk: 'not_matched', detail: 'address' }]],
    ['FFFF', [{ risk: 'not_matched', detail: 'postcode' }]],
    ['JJJJ', both('not_matched')],
    ['EEEE', both('not_checked')],
    ['HHHH', both('not_supplied')],
    [undefined, both('not_supplied')],
    ['NW1 6XE', undefined],
  ])('postal code %p → %p', async (postalCode, expected) => {
    const card = postalCode === undefined ? plainCard() : plainCard({ billingAddress: { ...ADDRESS, postalCode } });
    const res = await sale(testSimulator(), saleBody(card));
    expect(res.status).toBe(201);
    if (expected === undefined) expect(res.body).not.toHaveProperty('riskFactors');
    else expect(res.body.riskFactors).toEqual(expected);
  });
});

describe('a sale with a token', () => {
  it('charges the stored card, with its stored name and billing address deciding the outcome', async () => {
    const sim = testSimulator();
    const href = await tokenHref(sim, { cardHolderName: 'REFUSED51', billingAddress: { ...ADDRESS, postalCode: 'CCCC' } });
    const res = await sale(sim, saleBody({ type: 'card/token', href, cvc: '123' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      outcome: 'refused',
      refusalCode: '51',
      refusalDescription: 'LIMIT EXCEEDED',
      riskFactors: [{ risk: 'not_matched', detail: 'address' }],
      paymentInstrument: { card: { number: { bin: '444433', last4Digits: '1111' }, brand: 'visa', expiryDate: { month: 5, year: 2035 } } },
    });
  });

  it('is a use of the token: near the half-life it moves the expiry', async () => {
    const sim = testSimulator();
    const href = await tokenHref(sim);
    await advance(sim, 'P4D');
    expect((await sale(sim, saleBody({ type: 'card/token', href }))).status).toBe(201);
    await advance(sim, 'P4D');
    const res = await client(sim).get(href);
    expect(res.status).toBe(200);
    expect(res.body.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');
  });

  it('answers underlyingPaymentInstrumentHasExpired when the stored card has expired on the virtual clock', async () => {
    const sim = testSimulator({ profile: 'live' });
    const href = await tokenHref(sim, { cardExpiryDate: { month: 1, year: 2030 } });
    expect((await sale(sim, saleBody({ type: 'card/token', href }))).status).toBe(201);
    await advance(sim, 'P31D');
    const res = await sale(sim, saleBody({ type: 'card/token', href }));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('underlyingPaymentInstrumentHasExpired');
  });

  it.each<[string, (sim: Simulator) => Promise<string>]>([
    ['garbage', () => Promise.resolve('not a link')],
    ['a tampered ref', async (sim) => `${(await tokenHref(sim)).slice(0, -2)}xx`],
    ['a per-field link', async (sim) => (await client(sim).create(createBody())).body._links['tokens:description'].href],
    [
      'a deleted token',
      async (sim) => {
        const href = await tokenHref(sim);
        await client(sim).delete(href);
        return href;
      },
    ],
    [
      'an expired token',
      async (sim) => {
        const href = await tokenHref(sim);
        await advance(sim, 'P7D');
        return href;
      },
    ],
    ['another tenant’s token', async (sim) => (await client(sim, 'other', 'pw').create(createBody())).body.tokenPaymentInstrument.href],
  ])('reports %s as fieldHasInvalidValue at $.instruction.paymentInstrument.href', async (_name, hrefOf) => {
    const sim = testSimulator({ users: ['other:pw'] });
    const href = await hrefOf(sim);
    const res = await sale(sim, saleBody({ type: 'card/token', href }));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(res.body.validationErrors).toEqual([
      { errorName: 'fieldHasInvalidValue', message: expect.any(String), jsonPath: '$.instruction.paymentInstrument.href' },
    ]);
  });
});

describe('merchant configuration', () => {
  const fixtures = () => {
    const f = loadFixturesFile(DEFAULT_FIXTURES_PATH);
    f.entities.narrow = { currencies: ['EUR'], networks: ['VISA'] };
    f.credentials.push({ username: 'shop', password: 'pw', entities: ['narrow'] });
    return f;
  };

  it('answers entityIsNotConfigured for an entity the credential lacks', async () => {
    const res = await sale(testSimulator({ fixtures: fixtures() }), saleBody(plainCard(), { merchant: { entity: 'narrow' } }));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('entityIsNotConfigured');
  });

  it.each(['XTS', 'ABC'])('answers currencyIsNotSupported for %s on the default entity', async (currency) => {
    const body = saleBody();
    (body.instruction as { value: { currency: string } }).value.currency = currency;
    const res = await sale(testSimulator(), body);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('currencyIsNotSupported');
  });

  it('answers currencyIsNotSupported for a currency the entity does not take, and accepts one it does', async () => {
    const sim = testSimulator({ fixtures: fixtures() });
    const body = saleBody(plainCard(), { merchant: { entity: 'narrow' } });
    expect((await sale(sim, body, 'shop', 'pw')).body.errorName).toBe('currencyIsNotSupported');
    (body.instruction as { value: { currency: string } }).value.currency = 'EUR';
    expect((await sale(sim, body, 'shop', 'pw')).status).toBe(201);
  });

  it('answers paymentInstrumentIsNotSupported for a network the entity does not accept', async () => {
    const body = saleBody(plainCard({ cardNumber: '5555555555554444' }), { merchant: { entity: 'narrow' } });
    (body.instruction as { value: { currency: string } }).value.currency = 'EUR';
    const res = await sale(testSimulator({ fixtures: fixtures() }), body, 'shop', 'pw');
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('paymentInstrumentIsNotSupported');
  });
});

describe('sale headers', () => {
  const sim = testSimulator({ users: ['other:pw'] });
  const post = () => request(handlerOf(sim)).post(SALE_PATH).auth('merchant', 'secret');

  it.each([SALE_RESPONSE, SALE_REQUEST, '*/*', 'application/*'])('accepts Accept %s', async (accept) => {
    const res = await post().set('Content-Type', SALE_REQUEST).set('Accept', accept).send(JSON.stringify(saleBody()));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(SALE_RESPONSE);
  });

  it('answers 406 for a token media type in Accept', async () => {
    const res = await post().set('Content-Type', SALE_REQUEST).set('Accept', 'application/vnd.service.tokens-v1.hal+json').send(JSON.stringify(saleBody()));
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Accept' });
  });

  it.each([SALE_RESPONSE, 'application/json', 'application/vnd.service.payments-v6+json'])('answers 415 for Content-Type %s', async (type) => {
    const res = await post().set('Content-Type', type).set('Accept', SALE_RESPONSE).send(JSON.stringify(saleBody()));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Content-Type' });
  });

  it('answers 401 without credentials and 405 for GET', async () => {
    expect((await request(handlerOf(sim)).post(SALE_PATH).send('{}')).status).toBe(401);
    expect((await request(handlerOf(sim)).get(SALE_PATH)).status).toBe(405);
  });

  it('uses --vendor in both sale media types', async () => {
    const res = await request(handlerOf(testSimulator({ vendor: 'worldpay' })))
      .post(SALE_PATH)
      .auth('merchant', 'secret')
      .set('Content-Type', 'application/vnd.worldpay.payments-v5+json')
      .set('Accept', 'application/vnd.worldpay.payments-v5.hal+json')
      .send(JSON.stringify(saleBody()));
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/vnd.worldpay.payments-v5.hal+json');
  });
});

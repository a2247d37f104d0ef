/**
 * Detokenization (contract 3.3, decision 0031): `Accept: <token type>; masked=false` answers the full card
 * number as `card/front`, to credentials with `detokenize: true` only (others: 403 merchantIsNotConfigured);
 * the read cache never mixes the two views; the full number never reaches the journal (JSON, HAR, the
 * library), the request log or any /_sim answer.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSimulator } from '../../src/simulator/compose.js';
import type { Simulator } from '../../src/index.js';
import { HOST, START, TOKEN_TYPE, client, createBody, createToken, handlerOf, pathOf, testSimulator } from '../support/sim.js';
import { responseSchema, schemaValidator, type OpenApiDoc } from '../support/openapi-validator.js';

const PAN = '4111111111111111';
const MASKED = '4111********1111';
const UNMASKED = `${TOKEN_TYPE}; masked=false`;

const FIXTURES = {
  credentials: [
    { username: 'merchant', password: 'secret', entities: ['default'] },
    { username: 'vault-reader', password: 'pw', entities: ['default'], detokenize: true },
    { username: 'not-reader', password: 'pw', entities: ['default'], detokenize: false },
  ],
  entities: { default: { currencies: ['GBP'], networks: ['VISA'] } },
  bins: [{ prefix: '4', network: 'VISA', countryCode: 'GB', fundingType: 'credit' }],
};

const get = (sim: Simulator, path: string, accept: string, user = 'vault-reader', password = 'pw') =>
  request(handlerOf(sim)).get(path).auth(user, password).set('Accept', accept).set('Host', HOST);

interface Instrument {
  type: string;
  cardNumber: string;
  [key: string]: unknown;
}
const instrumentOf = (body: unknown): Instrument => (body as { paymentInstrument: Instrument }).paymentInstrument;

/** A simulator with the reader's token for PAN (in namespace shopper-1) and its links. */
async function setup(options: Parameters<typeof testSimulator>[0] = {}) {
  const sim = testSimulator({ fixtures: FIXTURES, ...options });
  const links = await createToken(client(sim, 'vault-reader', 'pw'), createBody({ cardNumber: PAN }, { namespace: 'shopper-1' }));
  return { sim, links, token: pathOf(links['tokens:token']!) };
}

describe('GET of a token with masked=false', () => {
  it('answers card/front with the full card number, everything else as the masked view', async () => {
    const { sim, token } = await setup();
    const masked = await get(sim, token, TOKEN_TYPE);
    const res = await get(sim, token, UNMASKED);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TOKEN_TYPE);
    expect(instrumentOf(res.body)).toMatchObject({ type: 'card/front', cardNumber: PAN, last4Digits: '1111', networkType: 'VISA' });
    const { paymentInstrument: a, ...restUnmasked } = res.body as Record<string, unknown>;
    const { paymentInstrument: b, ...restMasked } = masked.body as Record<string, unknown>;
    expect(restUnmasked).toEqual(restMasked);
    expect({ ...(a as object), type: 'card/masked', cardNumber: MASKED }).toEqual(b);
  });

  it.each([
    `${TOKEN_TYPE};masked=false`,
    `${TOKEN_TYPE}; MASKED=FALSE`,
    `${TOKEN_TYPE}; masked="false"`,
    `${TOKEN_TYPE}; charset=utf-8; masked = false`,
    `application/json;q=0.5, ${TOKEN_TYPE}; masked=false`,
    `*/*, ${TOKEN_TYPE}; masked=false; q=0.9`,
    `${TOKEN_TYPE.toUpperCase()}; masked=false`,
  ])('detokenizes with Accept: %s', async (accept) => {
    const { sim, token } = await setup();
    const res = await get(sim, token, accept);
    expect(res.status).toBe(200);
    expect(instrumentOf(res.body)).toMatchObject({ type: 'card/front', cardNumber: PAN });
  });

  it.each([
    TOKEN_TYPE,
    `${TOKEN_TYPE}; masked=true`,
    `${TOKEN_TYPE}; masked=no`,
    `${TOKEN_TYPE}; unmasked=false`,
    `*/*; masked=false`,
    `application/*; masked=false`,
    `${TOKEN_TYPE}; masked=false; q=0, */*`,
  ])('keeps the masked view with Accept: %s, whoever asks', async (accept) => {
    const { sim, token } = await setup();
    for (const [user, password] of [['vault-reader', 'pw'], ['merchant', 'secret']] as const) {
      // The merchant cannot read the reader's token: only the reader's own answer is compared.
      const res = await get(sim, token, accept, user, password);
      if (user === 'merchant') {
        expect(res.status).toBe(404);
        continue;
      }
      expect(res.status).toBe(200);
      expect(instrumentOf(res.body)).toMatchObject({ type: 'card/masked', cardNumber: MASKED });
    }
  });

  it.each([
    ['merchant', 'secret'],
    ['not-reader', 'pw'],
  ])('answers 403 merchantIsNotConfigured to %s, a credential without detokenize: true', async (user, password) => {
    const sim = testSimulator({ fixtures: FIXTURES });
    const token = pathOf((await createToken(client(sim, user, password), createBody({ cardNumber: PAN })))['tokens:token']!);
    const res = await get(sim, token, UNMASKED, user, password);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({ errorName: 'merchantIsNotConfigured', message: 'These credentials are not configured to detokenize card numbers (masked=false)' });
    // Before the URL is looked at: a ref that does not decrypt answers the same.
    expect((await get(sim, '/tokens/not-a-ref', UNMASKED, user, password)).status).toBe(403);
    expect((await get(sim, token, TOKEN_TYPE, user, password)).status).toBe(200);
  });

  it('answers 403 to a credential added by --user, and the default merchant of the default fixtures', async () => {
    const sim = testSimulator({ users: ['qa:pw'] });
    for (const [user, password] of [['qa', 'pw'], ['merchant', 'secret']] as const) {
      const token = pathOf((await createToken(client(sim, user, password), createBody({ cardNumber: PAN })))['tokens:token']!);
      expect((await get(sim, token, UNMASKED, user, password)).body.errorName).toBe('merchantIsNotConfigured');
    }
  });

  it('detokenizes on the conflicts ref too, with the conflicts', async () => {
    const { sim } = await setup();
    const conflict = await client(sim, 'vault-reader', 'pw').create(createBody({ cardNumber: PAN, cardHolderName: 'John Watson' }, { namespace: 'shopper-1' }));
    expect(conflict.status).toBe(409);
    const conflicts = pathOf((conflict.body as { _links: Record<string, { href: string }> })._links['tokens:conflicts']!.href);
    const res = await get(sim, conflicts, UNMASKED);
    expect(res.status).toBe(200);
    expect(instrumentOf(res.body)).toMatchObject({ type: 'card/front', cardNumber: PAN, cardHolderName: 'Sherlock Holmes' });
    expect(res.body.conflicts.paymentInstrument).toEqual({ cardHolderName: 'John Watson' });
    expect((await get(sim, conflicts, UNMASKED, 'merchant', 'secret')).status).toBe(403);
  });

  it('keeps the masked view in create answers, whatever Accept says', async () => {
    const sim = testSimulator({ fixtures: FIXTURES });
    const res = await request(handlerOf(sim))
      .post('/tokens')
      .auth('vault-reader', 'pw')
      .set('Accept', UNMASKED)
      .set('Content-Type', TOKEN_TYPE)
      .send(JSON.stringify(createBody({ cardNumber: PAN })));
    expect(res.status).toBe(201);
    expect(instrumentOf(res.body)).toMatchObject({ type: 'card/masked', cardNumber: MASKED });
  });
});

describe('token queries with masked=false', () => {
  it('answer every token as card/front to a reader, 403 to others', async () => {
    const { sim, token } = await setup();
    const res = await get(sim, '/tokens?namespace=shopper-1', UNMASKED);
    expect(res.status).toBe(200);
    const tokens = (res.body as { _embedded: { tokens: unknown[] } })._embedded.tokens;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toEqual((await get(sim, token, UNMASKED)).body);
    const refused = await get(sim, '/tokens?namespace=shopper-1', UNMASKED, 'merchant', 'secret');
    expect([refused.status, refused.body.errorName]).toEqual([403, 'merchantIsNotConfigured']);
  });
});

describe('the served OpenAPI document', () => {
  it('describes the detokenized answers and the 403 of GET of a token and of a query', async () => {
    const { sim, token } = await setup();
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as OpenApiDoc;
    const validatorOf = schemaValidator(doc);
    const checks: [string, string, number, string, string][] = [
      ['/tokens/{tokenRef}', token, 200, TOKEN_TYPE, 'vault-reader'],
      ['/tokens', '/tokens?namespace=shopper-1', 200, TOKEN_TYPE, 'vault-reader'],
      ['/tokens/{tokenRef}', token, 403, 'application/json', 'merchant'],
      ['/tokens', '/tokens?namespace=shopper-1', 403, 'application/json', 'merchant'],
    ];
    for (const [documented, path, status, type, user] of checks) {
      const res = await get(sim, path, UNMASKED, user, user === 'merchant' ? 'secret' : 'pw');
      expect([path, user, res.status]).toEqual([path, user, status]);
      const validate = validatorOf(responseSchema(doc, documented, 'get', status, type));
      expect([path, status, validate(res.body), validate.errors ?? null]).toEqual([path, status, true, null]);
    }
    const tokenList = responseSchema(doc, '/tokens', 'get', 200, TOKEN_TYPE);
    expect(validatorOf(tokenList)({ _embedded: { tokens: [{ tokenId: 'x' }] } })).toBe(false);
  });
});

describe('the read cache', () => {
  it('never answers a masked read with the full number, nor a detokenized read with the masked one', async () => {
    const { sim, token } = await setup();
    const views: string[] = [];
    for (const accept of [UNMASKED, TOKEN_TYPE, UNMASKED, UNMASKED, TOKEN_TYPE, TOKEN_TYPE, UNMASKED]) {
      const one = await get(sim, token, accept);
      const list = await get(sim, '/tokens?namespace=shopper-1', accept);
      const listed = (list.body as { _embedded: { tokens: unknown[] } })._embedded.tokens[0];
      views.push(`${instrumentOf(one.body).cardNumber} ${instrumentOf(listed).cardNumber}`);
      expect(one.text.includes(PAN)).toBe(accept === UNMASKED);
      expect(list.text.includes(PAN)).toBe(accept === UNMASKED);
    }
    const full = `${PAN} ${PAN}`;
    const masked = `${MASKED} ${MASKED}`;
    expect(views).toEqual([full, masked, full, full, masked, masked, full]);
  });
});

describe('the full card number after a detokenization', () => {
  it('is nowhere in the journal (JSON, HAR, the library), the request log, or any /_sim answer', async () => {
    for (const log of ['json', 'pretty'] as const) {
      const lines: string[] = [];
      const sim = createSimulator({ seed: 'test', now: START, frozen: true, fixtures: FIXTURES, log }, { writeErr: (line) => lines.push(line) });
      const api = client(sim, 'vault-reader', 'pw');
      const links = await createToken(api, createBody({ cardNumber: PAN }, { namespace: 'shopper-1' }));
      const detokenized = await get(sim, pathOf(links['tokens:token']!), UNMASKED);
      expect(detokenized.text).toContain(PAN);
      expect((await get(sim, '/tokens?namespace=shopper-1', UNMASKED)).text).toContain(PAN);
      expect((await get(sim, pathOf(links['tokens:token']!), UNMASKED, 'merchant', 'secret')).status).toBe(403);

      const control = request(handlerOf(sim));
      const json = await control.get('/_sim/requests');
      const har = await control.get('/_sim/requests?format=har');
      const own = await control.get('/_sim/requests?tenant=vault-reader');
      const filtered = await control.get('/_sim/requests?operation=getToken');
      expect([json.status, har.status, own.status, filtered.status]).toEqual([200, 200, 200, 200]);
      // The detokenized answers are journaled, masked.
      const entries = (json.body as { requests: { operation: string; status: number; responseBody?: { paymentInstrument?: Instrument } }[] }).requests;
      const read = entries.find((e) => e.operation === 'getToken' && e.status === 200);
      expect(read?.responseBody?.paymentInstrument).toMatchObject({ type: 'card/front', cardNumber: MASKED });
      expect(har.text).toContain(MASKED);
      const answers = [
        json.text,
        har.text,
        own.text,
        filtered.text,
        JSON.stringify(sim.requests()),
        (await control.get('/_sim/tokens')).text,
        (await control.get('/_sim/state')).text,
        (await control.get('/_sim/metrics')).text,
        lines.join('\n'),
      ];
      for (const [i, text] of answers.entries()) expect([log, i, text.includes(PAN)]).toEqual([log, i, false]);
      expect(lines.length).toBeGreaterThanOrEqual(3);
    }
  });
});

/**
 * Contract 3.3: an optional field sent as `null` is treated as absent (the vendor's own plugins send
 * `"address2": null, "state": null`); only a mandatory field that is `null` gives fieldIsNull, at its path,
 * all reported at once (decision 0032). Each null body is compared with the same body without the field, on
 * two simulators with the same seed: the whole answers (status, headers, body) and what was stored are equal.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { luhnCard } from '../support/cards.js';
import { plainCard, sale, saleBody } from '../support/sale.js';
import type { Simulator } from '../../src/simulator/facade.js';
import { ADDRESS, client, createBody, createToken, testSimulator, type Client } from '../support/sim.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the edits reach into arbitrary JSON on purpose
type Body = Record<string, any>;
type Expected = [errorName: string, jsonPath: string][];

const pairs = (body: { validationErrors?: { errorName: string; jsonPath?: string }[] }): Expected =>
  (body.validationErrors ?? []).map((v) => [v.errorName, v.jsonPath ?? '']);

/**
 * What a client sees of an answer: status, the headers the simulator writes, and the body as text. With the
 * Redis store each simulator names its own correlation ids (decision 0039: processes sharing a store must not
 * repeat each other's), so two simulators' ids differ there and are compared in shape only.
 */
const SHARED_STORE = process.env.TOKEN_SIM_TEST_STORE === 'redis';
const answer = (res: Response) => ({
  status: res.status,
  headers: Object.fromEntries(
    ['correlation-id', 'content-type', 'location', 'accept'].map((h) => [
      h,
      SHARED_STORE && h === 'correlation-id' ? /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(res.headers[h])) : res.headers[h],
    ]),
  ),
  text: res.text,
});

type Answer = ReturnType<typeof answer>;

/** Sets the value at `path` (creating objects on the way) of a copy of `body`. */
function withValueAt(body: Body, path: readonly string[], value: unknown): Body {
  const copy = structuredClone(body);
  let at = copy;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Body;
  at[path.at(-1)!] = value;
  return copy;
}

/** A copy of `body` without the value at `path`. */
function withoutValueAt(body: Body, path: readonly string[]): Body {
  const copy = structuredClone(body);
  let at: Body | undefined = copy;
  for (const key of path.slice(0, -1)) at = at?.[key] as Body | undefined;
  if (at) delete at[path.at(-1)!];
  return copy;
}

/** Runs `steps` on a fresh simulator (the same seed every time), so that two runs answer alike byte for byte. */
async function onFresh<T>(steps: (api: Client, sim: Simulator) => Promise<T>): Promise<T> {
  const sim = testSimulator();
  return steps(client(sim), sim);
}

const hrefOf = (res: Response): string => (res.body as { _links: { 'tokens:token': { href: string } } })._links['tokens:token'].href;

const FULL_ADDRESS = { ...ADDRESS, address2: 'Flat B', address3: 'Marylebone', state: 'Greater London' };

describe('POST /tokens: an optional field sent as null is absent', () => {
  const base = createBody({ billingAddress: FULL_ADDRESS }, { description: 'Main card', namespace: 'customer-1', tokenExpiryDateTime: '2030-01-05T00:00:00Z', schemeTransactionReference: 'STR 1' });
  it.each<[string, string[]]>([
    ['description (the default description applies)', ['description']],
    ['tokenExpiryDateTime (the default lifetime applies)', ['tokenExpiryDateTime']],
    ['namespace', ['namespace']],
    ['schemeTransactionReference', ['schemeTransactionReference']],
    ['billingAddress', ['paymentInstrument', 'billingAddress']],
    ['billingAddress.address2', ['paymentInstrument', 'billingAddress', 'address2']],
    ['billingAddress.address3', ['paymentInstrument', 'billingAddress', 'address3']],
    ['billingAddress.state', ['paymentInstrument', 'billingAddress', 'state']],
  ])('answers a null %s as if it were absent, and stores nothing for it', async (_name, path) => {
    const createAndRead = (body: Body) =>
      onFresh(async (api) => {
        const created = await api.create(body);
        return { created: answer(created), read: answer(await api.get(hrefOf(created))) };
      });
    const withNull = await createAndRead(withValueAt(base, path, null));
    const without = await createAndRead(withoutValueAt(base, path));
    expect(withNull.created.status).toBe(201);
    expect(withNull).toEqual(without);
  });

  it('accepts the vendor plugin’s body: "address2": null, "state": null', async () => {
    const withNull = await onFresh(async (api) => answer(await api.create(createBody({ billingAddress: { ...ADDRESS, address2: null, state: null } }))));
    const plain = await onFresh(async (api) => answer(await api.create(createBody({ billingAddress: ADDRESS }))));
    expect(withNull.status).toBe(201);
    expect(withNull).toEqual(plain);
    expect(JSON.parse(withNull.text).paymentInstrument.billingAddress).toEqual(ADDRESS);
  });

  it('answers every optional field null at once as the bare body', async () => {
    const nulls = createBody({ billingAddress: null }, { description: null, namespace: null, tokenExpiryDateTime: null, schemeTransactionReference: null });
    const withNull = await onFresh(async (api) => answer(await api.create(nulls)));
    const bare = await onFresh(async (api) => answer(await api.create(createBody())));
    expect(withNull.status).toBe(201);
    expect(withNull).toEqual(bare);
    expect(JSON.parse(withNull.text).description).toBe('Card ending 1111');
  });

  it('does not see a conflict in a null billing address or scheme transaction reference', async () => {
    const first = createBody({ billingAddress: ADDRESS }, { schemeTransactionReference: 'STR 1' });
    const again = (body: Body) =>
      onFresh(async (api) => {
        await api.create(first);
        return answer(await api.create(body));
      });
    const withNull = await again(createBody({ billingAddress: null }, { schemeTransactionReference: null }));
    const absent = await again(createBody());
    expect(withNull.status).toBe(200);
    expect(withNull).toEqual(absent);
    expect(JSON.parse(withNull.text)).not.toHaveProperty('conflicts');
  });

  it('keeps a null namespace out of every namespace: the 17th token of a namespace is refused, a null one is not', async () => {
    const api = client(testSimulator());
    for (let i = 1; i <= 16; i++) expect((await api.create(createBody({ cardNumber: luhnCard(i) }, { namespace: 'full' }))).status).toBe(201);
    expect((await api.create(createBody({ cardNumber: luhnCard(17) }, { namespace: 'full' }))).status).toBe(403);
    expect((await api.create(createBody({ cardNumber: luhnCard(17) }, { namespace: null }))).status).toBe(201);
  });
});

describe('POST /tokens: a mandatory field sent as null is fieldIsNull at its path', () => {
  it.each<[string, string[]]>([
    ['$.paymentInstrument', ['paymentInstrument']],
    ['$.paymentInstrument.type', ['paymentInstrument', 'type']],
    ['$.paymentInstrument.cardHolderName', ['paymentInstrument', 'cardHolderName']],
    ['$.paymentInstrument.cardNumber', ['paymentInstrument', 'cardNumber']],
    ['$.paymentInstrument.cardExpiryDate', ['paymentInstrument', 'cardExpiryDate']],
    ['$.paymentInstrument.cardExpiryDate.month', ['paymentInstrument', 'cardExpiryDate', 'month']],
    ['$.paymentInstrument.cardExpiryDate.year', ['paymentInstrument', 'cardExpiryDate', 'year']],
    ['$.paymentInstrument.billingAddress.address1', ['paymentInstrument', 'billingAddress', 'address1']],
    ['$.paymentInstrument.billingAddress.postalCode', ['paymentInstrument', 'billingAddress', 'postalCode']],
    ['$.paymentInstrument.billingAddress.city', ['paymentInstrument', 'billingAddress', 'city']],
    ['$.paymentInstrument.billingAddress.countryCode', ['paymentInstrument', 'billingAddress', 'countryCode']],
    ['$.merchant', ['merchant']],
    ['$.merchant.entity', ['merchant', 'entity']],
  ])('reports %s', async (jsonPath, path) => {
    const res = await client(testSimulator()).create(withValueAt(createBody({ billingAddress: ADDRESS }), path, null));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(pairs(res.body)).toEqual([['fieldIsNull', jsonPath]]);
    expect(res.body.validationErrors[0].message).toBe(`${path.at(-1)} must not be null`);
  });

  it('reports every mandatory null at once, and no optional one', async () => {
    const body = {
      paymentInstrument: { type: 'card/front', cardHolderName: null, cardNumber: '4444333322221111', cardExpiryDate: { month: null, year: 2035 }, billingAddress: { ...ADDRESS, city: null, address2: null, state: null } },
      merchant: { entity: null },
      description: null,
      namespace: null,
      tokenExpiryDateTime: null,
      schemeTransactionReference: null,
    };
    const res = await client(testSimulator()).create(body);
    expect(res.status).toBe(400);
    expect(pairs(res.body)).toEqual([
      ['fieldIsNull', '$.paymentInstrument.cardHolderName'],
      ['fieldIsNull', '$.paymentInstrument.cardExpiryDate.month'],
      ['fieldIsNull', '$.paymentInstrument.billingAddress.city'],
      ['fieldIsNull', '$.merchant.entity'],
    ]);
  });

  it('still reports a wrong value of an optional field as before', async () => {
    const res = await client(testSimulator()).create(createBody({ billingAddress: { ...ADDRESS, address2: 7, state: '' } }, { description: 5, namespace: '_x' }));
    expect(pairs(res.body)).toEqual([
      ['fieldMustBeString', '$.paymentInstrument.billingAddress.address2'],
      ['stringIsTooShort', '$.paymentInstrument.billingAddress.state'],
      ['fieldMustBeString', '$.description'],
      ['stringFailedRegexCheck', '$.namespace'],
    ]);
  });
});

describe('PUT /tokens/{ref}: a bare null is fieldIsNull; a null optional field inside is absent', () => {
  it.each([
    ['tokens:description', null],
    ['tokens:cardHolderName', null],
    ['tokens:cardExpiryDate', null],
    ['tokens:billingAddress', null],
    ['tokens:schemeTransactionReference', null],
  ])('reports a bare null on %s as fieldIsNull at $', async (rel, body) => {
    const api = client(testSimulator());
    const links = await createToken(api);
    const res = await api.put(links[rel]!, body);
    expect(res.status).toBe(400);
    expect(pairs(res.body)).toEqual([['fieldIsNull', '$']]);
  });

  it.each<[string, unknown, Expected]>([
    ['tokens:cardExpiryDate', { month: null, year: 2036 }, [['fieldIsNull', '$.month']]],
    ['tokens:billingAddress', { ...ADDRESS, address1: null, countryCode: null, state: null }, [['fieldIsNull', '$.address1'], ['fieldIsNull', '$.countryCode']]],
  ])('reports the mandatory nulls inside a %s body, all at once', async (rel, body, expected) => {
    const api = client(testSimulator());
    const links = await createToken(api);
    const res = await api.put(links[rel]!, body);
    expect(res.status).toBe(400);
    expect(pairs(res.body)).toEqual(expected);
  });

  it.each(['address2', 'address3', 'state'])('stores a billing address whose %s is null as one without it', async (field) => {
    const update = (body: Body) =>
      onFresh(async (api) => {
        const links = await createToken(api, createBody({ billingAddress: FULL_ADDRESS }));
        const put = answer(await api.put(links['tokens:billingAddress']!, body));
        return { put, read: answer(await api.get(links['tokens:token']!)) };
      });
    const withNull = await update(withValueAt(FULL_ADDRESS, [field], null));
    const without = await update(withoutValueAt(FULL_ADDRESS, [field]));
    expect(withNull.put.status).toBe(204);
    expect(withNull).toEqual(without);
    expect(JSON.parse(withNull.read.text).paymentInstrument.billingAddress).not.toHaveProperty(field);
  });
});

/** The answers to a sale (made after creating a token, whose href `body` may use) with the field at `path` null, and without it. */
async function twinSales(body: (tokenHref: string) => Body, path: readonly string[]): Promise<[Answer, Answer]> {
  const sell = (edit: (b: Body) => Body) =>
    onFresh(async (api, sim) => {
      const links = await createToken(api, createBody({ billingAddress: ADDRESS }));
      return answer(await sale(sim, edit(body(links['tokens:token']!))));
    });
  return [await sell((b) => withValueAt(b, path, null)), await sell((b) => withoutValueAt(b, path))];
}

const FACILITATOR = {
  pfId: 'PF-1',
  isoId: 'ISO',
  subMerchant: { city: 'London', name: 'Corner Shop', postalCode: 'NW1', merchantId: 'M-9', countryCode: 'GB', street: 'Baker Street', state: 'LDN', taxId: 'T1' },
};
/** A sale with every optional part present. */
const fullSale = (instrument: Body): Body =>
  saleBody(instrument, {
    instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street Stores', line2: 'order 1' }, paymentInstrument: instrument, debtRepayment: false },
    merchant: { entity: 'default', mcc: '5411', paymentFacilitator: FACILITATOR },
    channel: 'moto',
    customer: { authentication: { eci: '05', type: '3DS', authenticationValue: 'AAA', version: '2.2.0', transactionId: 'tx' } },
  });

describe('the sale: an optional field sent as null is absent', () => {
  const plain = (): Body => fullSale(plainCard({ billingAddress: FULL_ADDRESS, cvc: '123' }));
  it.each<[string, string[]]>([
    ['instruction.narrative.line2', ['instruction', 'narrative', 'line2']],
    ['instruction.debtRepayment', ['instruction', 'debtRepayment']],
    ['instruction.paymentInstrument.billingAddress (no billing address: risk factors not_supplied)', ['instruction', 'paymentInstrument', 'billingAddress']],
    ['instruction.paymentInstrument.billingAddress.address2', ['instruction', 'paymentInstrument', 'billingAddress', 'address2']],
    ['instruction.paymentInstrument.billingAddress.state', ['instruction', 'paymentInstrument', 'billingAddress', 'state']],
    ['instruction.paymentInstrument.cvc', ['instruction', 'paymentInstrument', 'cvc']],
    ['merchant.mcc', ['merchant', 'mcc']],
    ['merchant.paymentFacilitator', ['merchant', 'paymentFacilitator']],
    ['merchant.paymentFacilitator.isoId', ['merchant', 'paymentFacilitator', 'isoId']],
    ['merchant.paymentFacilitator.subMerchant.state', ['merchant', 'paymentFacilitator', 'subMerchant', 'state']],
    ['merchant.paymentFacilitator.subMerchant.taxId', ['merchant', 'paymentFacilitator', 'subMerchant', 'taxId']],
    ['channel', ['channel']],
    ['customer', ['customer']],
    ['customer.authentication.authenticationValue', ['customer', 'authentication', 'authenticationValue']],
    ['customer.authentication.version', ['customer', 'authentication', 'version']],
    ['customer.authentication.transactionId', ['customer', 'authentication', 'transactionId']],
  ])('answers a plain-card sale with a null %s as one without it', async (_name, path) => {
    const [withNull, without] = await twinSales(plain, path);
    expect(withNull.status).toBe(201);
    expect(withNull).toEqual(without);
  });

  it('answers a token sale with a null cvc as one without it', async () => {
    const [withNull, without] = await twinSales((href) => fullSale({ type: 'card/token', href, cvc: '123' }), ['instruction', 'paymentInstrument', 'cvc']);
    expect(withNull.status).toBe(201);
    expect(withNull).toEqual(without);
  });
});

describe('the sale: a mandatory field sent as null is fieldIsNull at its path', () => {
  it.each<[string, string[]]>([
    ['$.instruction', ['instruction']],
    ['$.instruction.value', ['instruction', 'value']],
    ['$.instruction.value.amount', ['instruction', 'value', 'amount']],
    ['$.instruction.value.currency', ['instruction', 'value', 'currency']],
    ['$.instruction.narrative', ['instruction', 'narrative']],
    ['$.instruction.narrative.line1', ['instruction', 'narrative', 'line1']],
    ['$.instruction.paymentInstrument', ['instruction', 'paymentInstrument']],
    ['$.instruction.paymentInstrument.cardNumber', ['instruction', 'paymentInstrument', 'cardNumber']],
    ['$.instruction.paymentInstrument.cardHolderName', ['instruction', 'paymentInstrument', 'cardHolderName']],
    ['$.instruction.paymentInstrument.cardExpiryDate', ['instruction', 'paymentInstrument', 'cardExpiryDate']],
    ['$.instruction.paymentInstrument.billingAddress.postalCode', ['instruction', 'paymentInstrument', 'billingAddress', 'postalCode']],
    ['$.merchant', ['merchant']],
    ['$.merchant.entity', ['merchant', 'entity']],
    ['$.merchant.paymentFacilitator.pfId', ['merchant', 'paymentFacilitator', 'pfId']],
    ['$.merchant.paymentFacilitator.subMerchant', ['merchant', 'paymentFacilitator', 'subMerchant']],
    ['$.merchant.paymentFacilitator.subMerchant.city', ['merchant', 'paymentFacilitator', 'subMerchant', 'city']],
    ['$.transactionReference', ['transactionReference']],
    ['$.customer.authentication', ['customer', 'authentication']],
    ['$.customer.authentication.eci', ['customer', 'authentication', 'eci']],
    ['$.customer.authentication.type', ['customer', 'authentication', 'type']],
  ])('reports %s', async (jsonPath, path) => {
    const res = await sale(testSimulator(), withValueAt(fullSale(plainCard({ billingAddress: ADDRESS })), path, null));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(pairs(res.body)).toEqual([['fieldIsNull', jsonPath]]);
  });

  it('reports a null href of a token instrument at its path', async () => {
    const res = await sale(testSimulator(), saleBody({ type: 'card/token', href: null, cvc: null }));
    expect(pairs(res.body)).toEqual([['fieldIsNull', '$.instruction.paymentInstrument.href']]);
  });

  it('reports every mandatory null of a sale at once, and no optional one', async () => {
    const body = fullSale(plainCard({ cardHolderName: null, billingAddress: { ...ADDRESS, city: null, state: null }, cvc: null }));
    body.instruction.value.currency = null;
    body.instruction.narrative.line2 = null;
    body.merchant.mcc = null;
    body.transactionReference = null;
    body.channel = null;
    const res = await sale(testSimulator(), body);
    expect(pairs(res.body)).toEqual([
      ['fieldIsNull', '$.instruction.value.currency'],
      ['fieldIsNull', '$.instruction.paymentInstrument.cardHolderName'],
      ['fieldIsNull', '$.instruction.paymentInstrument.billingAddress.city'],
      ['fieldIsNull', '$.transactionReference'],
    ]);
  });
});

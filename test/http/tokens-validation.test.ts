import { createServer } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADDRESS, HOST, TOKEN_TYPE, client, createBody, createToken, testSimulator, handlerOf } from '../support/sim.js';

type Expected = [errorName: string, jsonPath: string][];

const pairs = (body: { validationErrors?: { errorName: string; jsonPath?: string }[] }): Expected =>
  (body.validationErrors ?? []).map((v) => [v.errorName, v.jsonPath ?? '']);

const long = (n: number): string => 'a'.repeat(n);

describe('POST /tokens field validation', () => {
  const api = client(testSimulator());

  it.each<[string, Record<string, unknown>, Record<string, unknown>, Expected]>([
    ['a missing card number', { cardNumber: undefined }, {}, [['fieldIsMissing', '$.paymentInstrument.cardNumber']]],
    ['a null card number', { cardNumber: null }, {}, [['fieldIsNull', '$.paymentInstrument.cardNumber']]],
    ['a numeric card number', { cardNumber: 4444333322221111 }, {}, [['fieldMustBeString', '$.paymentInstrument.cardNumber']]],
    ['a short card number', { cardNumber: '424242424' }, {}, [['stringIsTooShort', '$.paymentInstrument.cardNumber']]],
    ['a long card number', { cardNumber: '42424242424242424242' }, {}, [['stringIsTooLong', '$.paymentInstrument.cardNumber']]],
    ['letters in the card number', { cardNumber: '4444-3333-2222' }, {}, [['stringFailedRegexCheck', '$.paymentInstrument.cardNumber']]],
    ['a card number failing Luhn', { cardNumber: '4444333322221112' }, {}, [['panFailedLuhnCheck', '$.paymentInstrument.cardNumber']]],
    ['another instrument type', { type: 'card/plain' }, {}, [['fieldHasInvalidValue', '$.paymentInstrument.type']]],
    ['a numeric instrument type', { type: 7 }, {}, [['fieldMustBeString', '$.paymentInstrument.type']]],
    ['a missing instrument type', { type: undefined }, {}, [['fieldIsMissing', '$.paymentInstrument.type']]],
    ['an empty card holder name', { cardHolderName: '' }, {}, [['stringIsTooShort', '$.paymentInstrument.cardHolderName']]],
    ['a 256-character card holder name', { cardHolderName: long(256) }, {}, [['stringIsTooLong', '$.paymentInstrument.cardHolderName']]],
    ['a missing expiry date', { cardExpiryDate: undefined }, {}, [['fieldIsMissing', '$.paymentInstrument.cardExpiryDate']]],
    ['an expiry date that is a string', { cardExpiryDate: '05/35' }, {}, [['fieldMustBeObject', '$.paymentInstrument.cardExpiryDate']]],
    ['month 0', { cardExpiryDate: { month: 0, year: 2035 } }, {}, [['integerIsTooSmall', '$.paymentInstrument.cardExpiryDate.month']]],
    ['month 13', { cardExpiryDate: { month: 13, year: 2035 } }, {}, [['integerIsTooLarge', '$.paymentInstrument.cardExpiryDate.month']]],
    ['a fractional month', { cardExpiryDate: { month: 1.5, year: 2035 } }, {}, [['fieldMustBeInteger', '$.paymentInstrument.cardExpiryDate.month']]],
    ['a string month', { cardExpiryDate: { month: '5', year: 2035 } }, {}, [['fieldMustBeInteger', '$.paymentInstrument.cardExpiryDate.month']]],
    ['year 0', { cardExpiryDate: { month: 5, year: 0 } }, {}, [['integerIsTooSmall', '$.paymentInstrument.cardExpiryDate.year']]],
    ['year 10000', { cardExpiryDate: { month: 5, year: 10000 } }, {}, [['integerIsTooLarge', '$.paymentInstrument.cardExpiryDate.year']]],
    ['a missing year', { cardExpiryDate: { month: 5 } }, {}, [['fieldIsMissing', '$.paymentInstrument.cardExpiryDate.year']]],
    ['a billing address that is an array', { billingAddress: [] }, {}, [['fieldMustBeObject', '$.paymentInstrument.billingAddress']]],
    ['a billing address without address1', { billingAddress: { ...ADDRESS, address1: undefined } }, {}, [['fieldIsMissing', '$.paymentInstrument.billingAddress.address1']]],
    ['a long address1', { billingAddress: { ...ADDRESS, address1: long(81) } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.address1']]],
    ['a long address2', { billingAddress: { ...ADDRESS, address2: long(81) } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.address2']]],
    ['a long address3', { billingAddress: { ...ADDRESS, address3: long(81) } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.address3']]],
    ['a long postal code', { billingAddress: { ...ADDRESS, postalCode: long(16) } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.postalCode']]],
    ['an empty city', { billingAddress: { ...ADDRESS, city: '' } }, {}, [['stringIsTooShort', '$.paymentInstrument.billingAddress.city']]],
    ['a long state', { billingAddress: { ...ADDRESS, state: long(31) } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.state']]],
    ['a 3-letter country code', { billingAddress: { ...ADDRESS, countryCode: 'GBR' } }, {}, [['stringIsTooLong', '$.paymentInstrument.billingAddress.countryCode']]],
    ['a 1-letter country code', { billingAddress: { ...ADDRESS, countryCode: 'G' } }, {}, [['stringIsTooShort', '$.paymentInstrument.billingAddress.countryCode']]],
    ['a lower-case country code', { billingAddress: { ...ADDRESS, countryCode: 'gb' } }, {}, [['stringFailedRegexCheck', '$.paymentInstrument.billingAddress.countryCode']]],
    ['a missing payment instrument', {}, { paymentInstrument: undefined }, [['fieldIsMissing', '$.paymentInstrument']]],
    ['a missing merchant', {}, { merchant: undefined }, [['fieldIsMissing', '$.merchant']]],
    ['a merchant without entity', {}, { merchant: {} }, [['fieldIsMissing', '$.merchant.entity']]],
    ['a numeric entity', {}, { merchant: { entity: 1 } }, [['fieldMustBeString', '$.merchant.entity']]],
    ['an empty description', {}, { description: '' }, [['stringIsTooShort', '$.description']]],
    ['a 256-character description', {}, { description: long(256) }, [['stringIsTooLong', '$.description']]],
    ['an ampersand in the description', {}, { description: 'Tom & Jerry' }, [['stringFailedRegexCheck', '$.description']]],
    ['a < in the description', {}, { description: '<b>' }, [['stringFailedRegexCheck', '$.description']]],
    ['an unparsable expiry date-time', {}, { tokenExpiryDateTime: 'next week' }, [['dateHasInvalidFormat', '$.tokenExpiryDateTime']]],
    ['an expiry date-time without a zone', {}, { tokenExpiryDateTime: '2030-02-01T00:00:00' }, [['dateHasInvalidFormat', '$.tokenExpiryDateTime']]],
    ['a numeric expiry date-time', {}, { tokenExpiryDateTime: 1893456000000 }, [['fieldMustBeString', '$.tokenExpiryDateTime']]],
    ['an expiry date-time in the past', {}, { tokenExpiryDateTime: '2029-12-31T23:59:59Z' }, [['fieldHasInvalidValue', '$.tokenExpiryDateTime']]],
    ['an empty namespace', {}, { namespace: '' }, [['stringIsTooShort', '$.namespace']]],
    ['a 65-character namespace', {}, { namespace: long(65) }, [['stringIsTooLong', '$.namespace']]],
    ['a namespace starting with an underscore', {}, { namespace: '_private' }, [['stringFailedRegexCheck', '$.namespace']]],
    ['a namespace with a space', {}, { namespace: 'my cards' }, [['stringFailedRegexCheck', '$.namespace']]],
    ['a namespace with &', {}, { namespace: 'a&b' }, [['stringFailedRegexCheck', '$.namespace']]],
    ['a namespace with <', {}, { namespace: 'a<b' }, [['stringFailedRegexCheck', '$.namespace']]],
    ['an empty scheme transaction reference', {}, { schemeTransactionReference: '' }, [['stringIsTooShort', '$.schemeTransactionReference']]],
    ['a 57-character scheme transaction reference', {}, { schemeTransactionReference: long(57) }, [['stringIsTooLong', '$.schemeTransactionReference']]],
    ['punctuation in the scheme transaction reference', {}, { schemeTransactionReference: 'abc-123' }, [['stringFailedRegexCheck', '$.schemeTransactionReference']]],
  ])('reports %s', async (_name, card, top, expected) => {
    const res = await api.create(createBody(card, top));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(pairs(res.body)).toEqual(expected);
    for (const item of res.body.validationErrors) expect(typeof item.message).toBe('string');
  });

  it('accepts the boundary values of every field', async () => {
    const res = await api.create(
      createBody(
        {
          cardNumber: '4000000000000002',
          cardHolderName: long(255),
          cardExpiryDate: { month: 12, year: 9999 },
          billingAddress: { address1: long(80), address2: long(80), address3: long(80), postalCode: long(15), city: long(50), state: long(30), countryCode: 'ZZ' },
        },
        { description: long(255), namespace: long(64), schemeTransactionReference: `${long(55)} ` },
      ),
    );
    expect(res.status).toBe(201);
  });

  it('reports every offending field at once, each with a message naming it', async () => {
    const res = await api.create({
      paymentInstrument: { type: 'card/front', cardNumber: '123', cardExpiryDate: { month: 13, year: 2035 } },
      merchant: { entity: 'default' },
      description: 'a&b',
    });
    expect(pairs(res.body)).toEqual([
      ['fieldIsMissing', '$.paymentInstrument.cardHolderName'],
      ['stringIsTooShort', '$.paymentInstrument.cardNumber'],
      ['integerIsTooLarge', '$.paymentInstrument.cardExpiryDate.month'],
      ['stringFailedRegexCheck', '$.description'],
    ]);
    expect(res.body.validationErrors[1].message).toBe('cardNumber must be between 10 and 19 characters');
    expect(res.body.validationErrors[0].message).toBe('cardHolderName is required');
  });

  it.each([
    ['an array', []],
    ['a string', 'hello'],
    ['a number', 42],
    ['null', null],
  ])('reports a body that is %s at $', async (_name, body) => {
    const res = await api.create(body);
    expect(res.status).toBe(400);
    expect(pairs(res.body)).toEqual([[body === null ? 'fieldIsNull' : 'fieldMustBeObject', '$']]);
  });
});

describe('PUT /tokens/{ref} field validation', () => {
  it.each<[string, string, unknown, Expected]>([
    ['description', 'tokens:description', '', [['stringIsTooShort', '$']]],
    ['description', 'tokens:description', 'a<b', [['stringFailedRegexCheck', '$']]],
    ['description', 'tokens:description', { description: 'x' }, [['fieldMustBeString', '$']]],
    ['card holder name', 'tokens:cardHolderName', long(256), [['stringIsTooLong', '$']]],
    ['card holder name', 'tokens:cardHolderName', null, [['fieldIsNull', '$']]],
    ['scheme transaction reference', 'tokens:schemeTransactionReference', 'a_b', [['stringFailedRegexCheck', '$']]],
    ['scheme transaction reference', 'tokens:schemeTransactionReference', long(57), [['stringIsTooLong', '$']]],
    ['card expiry date', 'tokens:cardExpiryDate', { month: 0, year: 10000 }, [['integerIsTooSmall', '$.month'], ['integerIsTooLarge', '$.year']]],
    ['card expiry date', 'tokens:cardExpiryDate', '2030-05', [['fieldMustBeObject', '$']]],
    ['billing address', 'tokens:billingAddress', { address1: 'x' }, [['fieldIsMissing', '$.postalCode'], ['fieldIsMissing', '$.city'], ['fieldIsMissing', '$.countryCode']]],
    ['billing address', 'tokens:billingAddress', { ...ADDRESS, countryCode: 'gb', state: '' }, [['stringIsTooShort', '$.state'], ['stringFailedRegexCheck', '$.countryCode']]],
  ])('reports a bad %s body', async (_name, rel, body, expected) => {
    const sim = testSimulator();
    const api = client(sim);
    const links = await createToken(api);
    const res = await api.put(links[rel]!, body);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyDoesNotMatchSchema');
    expect(pairs(res.body)).toEqual(expected);
  });

  it('names the field in the message of a bare-value body', async () => {
    const api = client(testSimulator());
    const links = await createToken(api);
    const res = await api.put(links['tokens:description']!, '');
    expect(res.body.validationErrors[0].message).toBe('description must be between 1 and 255 characters');
  });
});

describe('body errors', () => {
  const sim = testSimulator();
  const post = (): request.Test =>
    request(handlerOf(sim)).post('/tokens').auth('merchant', 'secret').set('Host', HOST).set('Accept', TOKEN_TYPE).set('Content-Type', TOKEN_TYPE);

  it('answers 400 bodyIsEmpty for no body', async () => {
    const res = await post();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorName: 'bodyIsEmpty', message: expect.any(String) });
  });

  it('answers 400 bodyIsEmpty for a body of white space', async () => {
    expect((await post().send('  \n')).body.errorName).toBe('bodyIsEmpty');
  });

  it.each(['{', '{"a":1,}', 'nope', '{"a": undefined}'])('answers 400 bodyIsNotJson for %p', async (text) => {
    const res = await post().send(text);
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyIsNotJson');
  });

  it('answers 413 bodyIsTooLarge over 1 MiB', async () => {
    const res = await post().send(JSON.stringify({ description: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body.errorName).toBe('bodyIsTooLarge');
  });

  it.each(['gzip', 'br', 'deflate'])('answers 400 bodyIsNotJson for a body that is not really %s-encoded', async (coding) => {
    const res = await post().set('Content-Encoding', coding).send(JSON.stringify(createBody()));
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe('bodyIsNotJson');
  });

  it('answers 415 for an unknown Content-Encoding', async () => {
    const res = await post().set('Content-Encoding', 'snappy').send(JSON.stringify(createBody()));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Content-Encoding' });
  });

  it('reads a body that really is gzip-encoded', async () => {
    // supertest re-encodes Buffer bodies, so this one goes through a real socket on loopback.
    const { gzipSync } = await import('node:zlib');
    const server = createServer(handlerOf(sim)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/tokens`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`,
          Accept: TOKEN_TYPE,
          'Content-Type': TOKEN_TYPE,
          'Content-Encoding': 'gzip',
        },
        body: gzipSync(JSON.stringify(createBody({ cardNumber: '4012888888881881' }))),
      });
      expect(res.status).toBe(201);
    } finally {
      server.close();
    }
  });

  it('answers 400 bodyIsEmpty for a per-field PUT without a body', async () => {
    const api = client(sim);
    const links = await createToken(api, createBody({ cardNumber: '4111111111111111' }));
    const res = await api.put(links['tokens:description']!);
    expect(res.body.errorName).toBe('bodyIsEmpty');
  });
});

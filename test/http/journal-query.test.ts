/**
 * GET /_sim/requests: filters, count, request and response bodies, HAR 1.2, and refusals of a bad query; a
 * client's Correlation-Id holding a card number.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Simulator } from '../../src/index.js';
import { sale, saleBody } from '../support/sale.js';
import { HOST, TOKEN_TYPE, client, createBody, createToken, handlerOf, testSimulator } from '../support/sim.js';

const control = (sim: Simulator) => request(handlerOf(sim));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Entry {
  seq: number;
  operation: string;
  status: number;
  method: string;
  rule: string | null;
  [key: string]: unknown;
}

/** createToken 201, getToken 200, getToken 404 (deleted), a sale 201, then an unauthenticated GET 401. */
async function session() {
  const sim = testSimulator({ scenarios: [] });
  const api = client(sim);
  const links = await createToken(api);
  await api.get(links['tokens:token']!);
  await api.delete(links['tokens:token']!);
  await api.get(links['tokens:token']!);
  await sale(sim, saleBody());
  await request(handlerOf(sim)).get('/tokens/abc');
  return sim;
}

const list = async (sim: Simulator, query: string) => {
  const res = await control(sim).get(`/_sim/requests${query}`);
  expect(res.status).toBe(200);
  return res.body as { requests: Entry[]; count: number };
};
const summary = (body: { requests: Entry[]; count: number }) => ({ seqs: body.requests.map((e) => e.seq), count: body.count });

describe('GET /_sim/requests filters', () => {
  it('answers every entry and their count without a filter, newest last', async () => {
    expect(summary(await list(await session(), ''))).toEqual({ seqs: [1, 2, 3, 4, 5, 6], count: 6 });
  });

  it.each([
    ['?operation=getToken', [2, 4, 6]],
    ['?status=404', [4]],
    ['?method=delete', [3]],
    ['?operation=getToken&status=200', [2]],
    ['?since=4', [5, 6]],
    ['?tenant=merchant&operation=getToken', [2, 4]],
  ])('%s', async (query, seqs) => {
    expect(summary(await list(await session(), query))).toEqual({ seqs, count: seqs.length });
  });

  it('answers the oldest `limit` entries that pass, with the count of all of them; limit=0 only counts', async () => {
    const sim = await session();
    expect(summary(await list(sim, '?operation=getToken&limit=2'))).toEqual({ seqs: [2, 4], count: 3 });
    expect(await list(sim, '?limit=0')).toEqual({ requests: [], count: 6, next: null });
  });

  it('pages forward with since = the last seq seen', async () => {
    const sim = await session();
    const first = await list(sim, '?limit=4');
    expect(summary(first)).toEqual({ seqs: [1, 2, 3, 4], count: 6 });
    const next = await list(sim, `?limit=4&since=${first.requests.at(-1)!.seq}`);
    expect(summary(next)).toEqual({ seqs: [5, 6], count: 2 });
    expect(await list(sim, '?limit=4&since=6')).toEqual({ requests: [], count: 0, next: null });
  });

  it('answers a page of at most 1000 entries by default, with the cursor of the next page', async () => {
    const sim = await session();
    const first = (await request(handlerOf(sim)).get('/_sim/requests?limit=4')).body as { requests: Entry[]; next: string | null };
    expect(first.next).toBe('4');
    const second = (await request(handlerOf(sim)).get(`/_sim/requests?limit=4&cursor=${first.next}`)).body as { requests: Entry[]; next: string | null };
    expect([second.requests.map((e) => e.seq), second.next]).toEqual([[5, 6], null]);
    const har = (await request(handlerOf(sim)).get('/_sim/requests?format=har&limit=5')).body as { log: { entries: unknown[]; _next: string | null } };
    expect([har.log.entries.length, har.log._next]).toEqual([5, '5']);
  });

  it.each([['?limit=10001'], ['?cursor=abc'], ['?cursor=2&since=1'], ['?limit=1&limit=2'], ['?cursor=1&cursor=2']])('refuses %s', async (query) => {
    const res = await request(handlerOf(await session())).get(`/_sim/requests${query}`);
    expect([res.status, res.body.errorName]).toEqual([400, 'urlContainsInvalidValue']);
  });

  it('filters by the scenario rule that applied', async () => {
    const sim = testSimulator();
    sim.loadScenarios({ name: 'slow', rules: [{ id: 'slow-read', when: { operation: 'getToken' }, then: { error: { status: 503, errorName: 'serviceUnavailable', message: 'down' } } }] });
    const links = await createToken(client(sim));
    await client(sim).get(links['tokens:token']!);
    expect((await list(sim, '?rule=slow-read')).requests.map((e) => [e.operation, e.status, e.rule])).toEqual([['getToken', 503, 'slow-read']]);
  });
});

describe('a bad query of /_sim/requests', () => {
  it.each([
    ['?opertion=sale', 'fieldIsNotAllowed', 'opertion is not a parameter of GET /_sim/requests; did you mean operation?'],
    ['?color=red', 'fieldIsNotAllowed', 'color is not a parameter of GET /_sim/requests'],
    ['?operation=capture', 'fieldHasInvalidValue', 'operation must be one of createToken, getToken, updateToken, deleteToken, queryTokens, sale, refund, partialRefund, reversal, paymentEvents, paymentQuery, unknown'],
    ['?operation=', 'fieldIsEmpty', 'operation must not be empty'],
    ['?status=abc', 'fieldMustBeInteger', 'status must be an HTTP status from 0 to 599'],
    ['?status=2.5', 'fieldMustBeInteger', 'status must be an HTTP status from 0 to 599'],
    ['?status=600', 'integerIsTooLarge', 'status must be an HTTP status from 0 to 599'],
    ['?status=200&status=201', 'fieldHasInvalidValue', 'status must be given once'],
    ['?since=-1', 'integerIsTooSmall', 'since must be a non-negative integer'],
    ['?since=99999999999999999999', 'integerIsTooLarge', 'since must be a non-negative integer'],
    ['?limit=', 'fieldMustBeInteger', 'limit must be a non-negative integer'],
    ['?limit=ten', 'fieldMustBeInteger', 'limit must be a non-negative integer'],
    ['?method=GE%20T', 'fieldHasInvalidValue', 'method must be an HTTP method such as GET or POST'],
    ['?format=xml', 'fieldHasInvalidValue', 'format must be one of json, har'],
    ['?operation=sael', 'fieldHasInvalidValue', 'operation must be one of createToken, getToken, updateToken, deleteToken, queryTokens, sale, refund, partialRefund, reversal, paymentEvents, paymentQuery, unknown; did you mean sale?'],
    ['?operation=CreateToken', 'fieldHasInvalidValue', 'operation must be one of createToken, getToken, updateToken, deleteToken, queryTokens, sale, refund, partialRefund, reversal, paymentEvents, paymentQuery, unknown; did you mean createToken?'],
    ['?format=jsno', 'fieldHasInvalidValue', 'format must be one of json, har; did you mean json?'],
  ])('refuses %s with 400 urlContainsInvalidValue naming the parameter', async (query, errorName, message) => {
    const res = await control(testSimulator()).get(`/_sim/requests${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errorName: 'urlContainsInvalidValue', message: 'The query of GET /_sim/requests is not valid', validationErrors: [{ errorName, message }] });
  });

  it('reports every bad parameter at once', async () => {
    const res = await control(testSimulator()).get('/_sim/requests?limit=-1&status=x&opertion=sale');
    expect((res.body.validationErrors as { errorName: string }[]).map((v) => v.errorName)).toEqual(['fieldIsNotAllowed', 'fieldMustBeInteger', 'integerIsTooSmall']);
  });

  it('refuses a filter on DELETE instead of clearing everything', async () => {
    const sim = await session();
    const res = await control(sim).delete('/_sim/requests?operation=sale');
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([{ errorName: 'fieldIsNotAllowed', message: 'operation is not a parameter of DELETE /_sim/requests' }]);
    expect((await list(sim, '')).count).toBe(6);
  });
});

describe('bodies and headers in the journal', () => {
  it('keeps the answer and the request headers that matter, never the credentials', async () => {
    const sim = testSimulator();
    const res = await client(sim).create(createBody());
    const [entry] = (await list(sim, '')).requests;
    expect(entry?.responseBody).toEqual(res.body);
    expect(entry?.responseHeaders).toMatchObject({ Location: res.headers.location, 'Content-Type': TOKEN_TYPE });
    expect(JSON.stringify(entry)).not.toMatch(/"authorization"|bWVyY2hhbnQ6c2VjcmV0/i);
  });

  it('keeps a body that is not JSON as masked text', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim))
      .post('/tokens')
      .auth('merchant', 'secret')
      .set('Content-Type', TOKEN_TYPE)
      .set('Accept', TOKEN_TYPE)
      .send('{"paymentInstrument": {"cardNumber": 4444333322221112, "cvc": 987');
    expect(res.body.errorName).toBe('bodyIsNotJson');
    const [entry] = (await list(sim, '')).requests;
    expect(entry?.requestText).toBe('{"paymentInstrument": {"cardNumber": 4444********1112, "cvc": ***');
    expect(entry?.responseBody).toEqual(res.body);
  });

  it('keeps the query string, masked', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).get('/nope?cvc=123&pan=4444-3333-2222-1111').auth('merchant', 'secret');
    expect((await list(sim, '')).requests[0]?.query).toBe('cvc=***&pan=4444-****-****-1111');
  });
});

/** Problems of a HAR 1.2 document with its required fields and their types (the spec's "required" list). */
function harProblems(doc: unknown): string[] {
  const problems: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const need = (o: unknown, path: string, fields: Record<string, 'string' | 'number' | 'object' | 'array'>): void => {
    if (!isObject(o)) {
      problems.push(`${path} is not an object`);
      return;
    }
    for (const [key, type] of Object.entries(fields)) {
      const v = o[key];
      const ok = type === 'array' ? Array.isArray(v) : type === 'object' ? isObject(v) : typeof v === type;
      if (!ok) problems.push(`${path}.${key} is not ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}`);
    }
  };
  const pairs = (list: unknown, path: string): void => {
    if (Array.isArray(list)) list.forEach((p, i) => need(p, `${path}[${i}]`, { name: 'string', value: 'string' }));
  };
  need(doc, '$', { log: 'object' });
  const log = (doc as { log?: Record<string, unknown> }).log;
  need(log, '$.log', { version: 'string', creator: 'object', entries: 'array' });
  need(log?.creator, '$.log.creator', { name: 'string', version: 'string' });
  const entries = Array.isArray(log?.entries) ? (log.entries as Record<string, unknown>[]) : [];
  entries.forEach((e, i) => {
    const at = `$.log.entries[${i}]`;
    need(e, at, { startedDateTime: 'string', time: 'number', request: 'object', response: 'object', cache: 'object', timings: 'object' });
    if (typeof e.startedDateTime === 'string' && Number.isNaN(Date.parse(e.startedDateTime))) problems.push(`${at}.startedDateTime is not a date`);
    const req = e.request as Record<string, unknown>;
    need(req, `${at}.request`, { method: 'string', url: 'string', httpVersion: 'string', cookies: 'array', headers: 'array', queryString: 'array', headersSize: 'number', bodySize: 'number' });
    if (typeof req?.url === 'string' && !URL.canParse(req.url)) problems.push(`${at}.request.url is not an absolute URL`);
    pairs(req?.headers, `${at}.request.headers`);
    pairs(req?.queryString, `${at}.request.queryString`);
    if (req?.postData !== undefined) need(req.postData, `${at}.request.postData`, { mimeType: 'string' });
    const res = e.response as Record<string, unknown>;
    need(res, `${at}.response`, { status: 'number', statusText: 'string', httpVersion: 'string', cookies: 'array', headers: 'array', content: 'object', redirectURL: 'string', headersSize: 'number', bodySize: 'number' });
    pairs(res?.headers, `${at}.response.headers`);
    need(res?.content, `${at}.response.content`, { size: 'number', mimeType: 'string' });
    need(e.timings, `${at}.timings`, { send: 'number', wait: 'number', receive: 'number' });
    for (const key of Object.keys(e)) if (!['startedDateTime', 'time', 'request', 'response', 'cache', 'timings', 'pageref', 'serverIPAddress', 'connection', 'comment'].includes(key) && !key.startsWith('_')) problems.push(`${at}.${key} is not a HAR field (custom fields start with _)`);
  });
  return problems;
}

describe('?format=har', () => {
  it('checks the HAR 1.2 structure (the checker itself finds a missing field)', () => {
    expect(harProblems({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ startedDateTime: 'now', time: 1, extra: 1 }] } })).toEqual(
      expect.arrayContaining(['$.log.entries[0].request is not an object', '$.log.entries[0].startedDateTime is not a date', '$.log.entries[0].extra is not a HAR field (custom fields start with _)']),
    );
  });

  it('answers a valid HAR 1.2 document of the same entries, masked', async () => {
    const sim = await session();
    await client(sim).create(createBody({ cardNumber: '5555555555554444', cvc: 321 }, { description: 'card 5555 5555 5555 4444' }));
    const res = await control(sim).get('/_sim/requests?format=har');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(harProblems(res.body)).toEqual([]);
    const { log } = res.body;
    expect(log.version).toBe('1.2');
    expect(log.creator).toEqual({ name: 'token-sim', version: VERSION });
    expect(log._count).toBe(7);
    expect(log.entries.map((e: { _seq: number }) => e._seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const text = JSON.stringify(res.body);
    for (const secret of ['5555555555554444', '5555 5555 5555 4444', '4444333322221111', '"cvc":321', Buffer.from('merchant:secret').toString('base64')]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/"name":"authorization"/i);
  });

  it('writes one entry as a HAR viewer expects it', async () => {
    const sim = testSimulator();
    const created = await client(sim).create(createBody());
    const res = await control(sim).get('/_sim/requests?format=har&operation=createToken');
    const [entry] = res.body.log.entries;
    const body = JSON.stringify(createBody());
    expect(entry).toEqual({
      startedDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      time: expect.any(Number),
      request: {
        method: 'POST',
        url: `http://${HOST}/tokens`,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [
          { name: 'Host', value: HOST },
          { name: 'Accept', value: TOKEN_TYPE },
          { name: 'Content-Type', value: TOKEN_TYPE },
          { name: 'Content-Length', value: String(body.length) },
        ],
        queryString: [],
        postData: { mimeType: TOKEN_TYPE, text: body.replace('4444333322221111', '4444********1111') },
        headersSize: -1,
        bodySize: body.length,
      },
      response: {
        status: 201,
        statusText: 'Created',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: expect.arrayContaining([
          { name: 'Location', value: created.headers.location },
          { name: 'Correlation-Id', value: created.headers['correlation-id'] },
          { name: 'Content-Type', value: TOKEN_TYPE },
        ]),
        content: { size: created.text.length, mimeType: TOKEN_TYPE, text: created.text },
        redirectURL: created.headers.location,
        headersSize: -1,
        bodySize: created.text.length,
      },
      cache: {},
      timings: { send: 0, wait: entry.time, receive: 0 },
      _seq: 1,
      _tenant: 'merchant',
      _operation: 'createToken',
      _rule: null,
      _correlationId: created.headers['correlation-id'],
      _virtualTime: '2030-01-01T00:00:00Z',
    });
    expect(Date.parse(entry.startedDateTime)).toBeLessThanOrEqual(Date.now());
  });

  it('takes the same filters and keeps the query of a request, decoded and masked', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).get('/nope?cvc=123&q=a%20b').set('Host', HOST).auth('merchant', 'secret');
    await createToken(client(sim));
    const res = await control(sim).get('/_sim/requests?format=har&status=404');
    expect(harProblems(res.body)).toEqual([]);
    expect(res.body.log._count).toBe(1);
    const [entry] = res.body.log.entries;
    expect(entry.request.url).toBe(`http://${HOST}/nope?cvc=***&q=a+b`);
    expect(entry.request.queryString).toEqual([
      { name: 'cvc', value: '***' },
      { name: 'q', value: 'a b' },
    ]);
    expect(entry.response.content).toMatchObject({ mimeType: 'application/json', text: expect.stringContaining('"errorName":"endpointNotFound"') });
  });
});

describe('a client Correlation-Id holding a card number', () => {
  it.each([
    ['4444333322221111', '4444********1111'],
    ['4444-3333-2222-1111', '4444-****-****-1111'],
    ['order.4444.3333.2222.1111', 'order.4444.****.****.1111'],
  ])('is echoed and journaled masked: %s', async (id, masked) => {
    const sim = testSimulator();
    const links = await createToken(client(sim));
    const res = await request(handlerOf(sim)).get(new URL(links['tokens:token']!).pathname).auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Correlation-Id', id);
    expect(res.status).toBe(200);
    expect(res.headers['correlation-id']).toBe(masked);
    const entry = (await list(sim, '?operation=getToken')).requests[0];
    expect(entry?.correlationId).toBe(masked);
    expect(entry?.requestHeaders).toMatchObject({ 'Correlation-Id': masked });
    expect((await control(sim).get('/_sim/clock').set('Correlation-Id', id)).headers['correlation-id']).toBe(masked);
  });

  it('is echoed as it came when it holds no card number', async () => {
    const res = await request(handlerOf(testSimulator())).get('/nope').set('Correlation-Id', 'order-4444-3333-2222-1112');
    expect(res.headers['correlation-id']).toBe('order-4444-3333-2222-1112');
  });
});

describe('the OpenAPI document', () => {
  it('documents the journal query, its count and its refusal', async () => {
    const doc = (await control(testSimulator()).get('/_sim/openapi.json')).body;
    const get = doc.paths['/_sim/requests'].get;
    expect(get.parameters.map((p: { name: string }) => p.name)).toEqual(['operation', 'status', 'method', 'rule', 'since', 'limit', 'cursor', 'format']);
    expect(get.responses[200].content['application/json'].schema.properties.count).toEqual({ type: 'integer', minimum: 0 });
    expect(Object.keys(get.responses)).toContain('400');
  });
});

import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { errorResponse, saleResponse, tokenResponse, clockResponse } from '../../src/http/openapi-schemas.js';
import { run } from '../support/cli.js';
import { sale, saleBody } from '../support/sale.js';
import { ADDRESS, HOST, client, createBody, createToken, testSimulator, handlerOf } from '../support/sim.js';
import { problemsOf, responseSchema, schemaValidator, type OpenApiDoc, type Schema } from '../support/openapi-validator.js';
import type { Simulator } from '../../src/simulator/facade.js';
import { API_ROUTES } from '../../src/http/routes.js';
import { CONTROL_TABLE } from '../../src/http/admin/table.js';

type Doc = { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

describe('the OpenAPI document', () => {
  const sim = testSimulator({ vendor: 'worldpay' });

  it('is served at /_sim/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const res = await request(handlerOf(sim)).get('/_sim/openapi.json').set('Host', 'sim.localhost:9000');
    expect(res.status).toBe(200);
    const doc = res.body as Doc & { servers: { url: string }[] };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]?.url).toBe('http://sim.localhost:9000');
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('describes every route the server answers, and no other', async () => {
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as Doc;
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    // The API's routes (one table, routes.ts) and the control table's (what /_sim serves: test/http/control-table.test.ts).
    const api = API_ROUTES.flatMap((route) =>
      Object.keys(route.methods)
        .filter((m) => m !== 'HEAD')
        .map((m) => `${m} ${route.pattern.replace(':ref', route.pattern.startsWith('/payments/') ? '{paymentRef}' : route.pattern.startsWith('/paymentQueries/') ? '{paymentId}' : '{tokenRef}')}`),
    );
    const served = [...api, ...CONTROL_TABLE.map((op) => `${op.method} /_sim${op.path.replace(/:(\w+)/g, '{$1}')}`)];
    expect(served.length).toBeGreaterThan(15);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('documents the tenant parameter of every /_sim call that takes one, the scenario sets included', async () => {
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as Doc;
    const tenantPaths = Object.entries(doc.paths)
      .filter(([, item]) => ((item.parameters ?? []) as { name: string }[]).some((p) => p.name === 'tenant'))
      .map(([path]) => path)
      .sort();
    expect(tenantPaths).toEqual([
      '/_sim/clock',
      '/_sim/clock/advance',
      '/_sim/magic-values',
      '/_sim/payments',
      '/_sim/payments/{paymentId}/refund',
      '/_sim/payments/{paymentId}/reversal',
      '/_sim/requests',
      '/_sim/requests/stream',
      '/_sim/reset',
      '/_sim/scenarios',
      '/_sim/state',
      '/_sim/tenants',
      '/_sim/tokens',
      '/_sim/tokens/{tokenId}',
      '/_sim/webhooks',
      '/_sim/webhooks/flush',
      '/_sim/webhooks/{id}/resend',
    ]);
  });

  it('uses the vendor’s media types and the request schemas the server validates with', async () => {
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as Doc;
    const create = doc.paths['/tokens']!.post as { requestBody: { content: Record<string, unknown> } };
    expect(Object.keys(create.requestBody.content)).toEqual(['application/vnd.worldpay.tokens-v1.hal+json']);
    const schema = JSON.stringify(doc.components.schemas.CreateTokenRequest);
    expect(schema).toContain('"maxLength":19');
    expect(schema).toContain('"enum":["card/front"]');
  });

  it('matches what the server really answers', async () => {
    const plain = testSimulator();
    const api = client(plain);
    const created = await api.create(createBody({ billingAddress: ADDRESS }));
    tokenResponse.parse(created.body);
    tokenResponse.parse((await api.create(createBody())).body);
    tokenResponse.parse((await api.create(createBody({ cardHolderName: 'Other' }))).body);
    const links = await createToken(api, createBody({ cardNumber: '5555555555554444' }));
    tokenResponse.parse((await api.get(links['tokens:token']!)).body);
    saleResponse.parse((await sale(plain, saleBody())).body);
    saleResponse.parse((await sale(plain, saleBody({ type: 'card/token', href: links['tokens:token'] }))).body);
    errorResponse.parse((await api.create({})).body);
    clockResponse.parse((await request(handlerOf(plain)).get('/_sim/clock')).body);
  });

  it('is printed by `token-sim openapi`', async () => {
    const r = run(['openapi', '--vendor', 'acme', '--base-url', 'https://sandbox.example']);
    expect(await r.exited).toBe(0);
    const doc = JSON.parse(r.stdout()) as Doc & { servers: { url: string }[] };
    expect(doc.servers[0]?.url).toBe('https://sandbox.example');
    expect(Object.keys((doc.paths['/tokens']!.post as { requestBody: { content: Record<string, unknown> } }).requestBody.content)).toEqual(['application/vnd.acme.tokens-v1.hal+json']);
  });
});

describe('the OpenAPI document against real answers (issue 13)', () => {
  const TENANT_PATHS = ['/_sim/clock', '/_sim/clock/advance', '/_sim/requests', '/_sim/reset', '/_sim/scenarios', '/_sim/tokens', '/_sim/webhooks', '/_sim/webhooks/flush'];
  const served = async (sim: Simulator): Promise<OpenApiDoc> => (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as OpenApiDoc;
  /** A simulator with a token, a tenant scenario set and a global one that both hold card numbers. */
  async function populated(): Promise<Simulator> {
    const sim = testSimulator();
    await createToken(client(sim), createBody({ billingAddress: ADDRESS }));
    const scenario = (name: string, cardNumber: string) => ({
      name,
      tokens: [{ paymentInstrument: { type: 'card/front', cardHolderName: 'Irene Adler', cardNumber, cardExpiryDate: { month: 1, year: 2036 } }, merchant: { entity: 'default' } }],
      rules: [{ when: { cardNumber: '4012888888881881' }, then: { delayMs: 0 } }],
    });
    for (const [query, number] of [['?tenant=merchant', '4111111111111111'], ['', '5555555555554444']] as const) {
      const res = await request(handlerOf(sim)).put(`/_sim/scenarios${query}`).set('Content-Type', 'application/json').send(JSON.stringify(scenario(`set${query}`, number)));
      expect(res.status).toBe(200);
    }
    return sim;
  }

  it('requires a tenant parameter of at least one character', async () => {
    const doc = await served(testSimulator());
    for (const path of TENANT_PATHS) {
      const tenant = ((doc.paths[path]!.parameters ?? []) as { name: string; schema: { minLength?: number } }[]).find((p) => p.name === 'tenant');
      expect([path, tenant?.schema.minLength]).toEqual([path, 1]);
    }
  });

  it('documents the 400 of an unknown tenant on every call that takes one', async () => {
    const sim = testSimulator();
    const doc = await served(sim);
    const validatorOf = schemaValidator(doc);
    for (const path of TENANT_PATHS) {
      for (const method of ['get', 'put', 'post', 'delete'].filter((m) => doc.paths[path]![m] !== undefined)) {
        const res = await request(handlerOf(sim))[method as 'get'](`${path}?tenant=nobody`);
        expect([method, path, res.status, res.body.errorName]).toEqual([method, path, 400, 'urlContainsInvalidValue']);
        expect(problemsOf(validatorOf, responseSchema(doc, path, method, 400), res.body)).toEqual([]);
      }
    }
  });

  it('marks the date-times the simulator writes with format: date-time, and the dates it reads as date-time or date', async () => {
    const { components } = await served(testSimulator());
    const text = (name: string): string => JSON.stringify(components.schemas[name]);
    const DATE_TIME = '{"type":"string","format":"date-time"}';
    expect(text('Token')).toContain(`"tokenExpiryDateTime":${DATE_TIME}`);
    expect(text('Token')).toContain(`"conflictsExpiryDateTime":${DATE_TIME}`);
    expect(text('Clock')).toContain(`"now":${DATE_TIME}`);
    // An optional request field may also be null, meaning absent (decision 0032).
    expect(text('CreateTokenRequest')).toContain('"tokenExpiryDateTime":{"anyOf":[{"type":"string","format":"date-time"},{"type":"null"}]}');
    const either = '"anyOf":[{"format":"date-time"},{"format":"date"}]';
    for (const key of ['now', 'createdAt', 'expiresAt']) expect(text('State')).toMatch(new RegExp(`"${key}":\\{"type":"string",${either.replace(/[[\]{}]/g, '\\$&')}`));
    expect(text('Scenario')).toMatch(/"from":\{"type":"string","anyOf":\[\{"format":"date-time"\},\{"format":"date"\}\]/);
  });

  it('describes the items of /_sim/tokens with their tenant', async () => {
    const sim = await populated();
    const doc = await served(sim);
    const res = await request(handlerOf(sim)).get('/_sim/tokens').set('Host', HOST);
    expect(res.body.tokens[0].tenant).toBe('merchant');
    expect(problemsOf(schemaValidator(doc), responseSchema(doc, '/_sim/tokens', 'get', 200), res.body)).toEqual([]);
  });

  it('describes the state export as it is: scenario sets carry sealed card numbers', async () => {
    const sim = await populated();
    const doc = await served(sim);
    const res = await request(handlerOf(sim)).get('/_sim/state');
    expect(JSON.stringify(res.body.scenarios)).toContain('sealedCardNumber');
    const validatorOf = schemaValidator(doc);
    expect(problemsOf(validatorOf, responseSchema(doc, '/_sim/state', 'get', 200), res.body)).toEqual([]);
    // The export is a valid import too, as the document says.
    const put = doc.paths['/_sim/state']!.put as { requestBody: { content: Record<string, { schema: Schema }> } };
    expect(problemsOf(validatorOf, put.requestBody.content['application/json']!.schema, res.body)).toEqual([]);
  });

  it('describes the scenario echo as it is: card numbers masked', async () => {
    const sim = await populated();
    const doc = await served(sim);
    const validatorOf = schemaValidator(doc);
    for (const query of ['', '?tenant=merchant']) {
      const res = await request(handlerOf(sim)).get(`/_sim/scenarios${query}`);
      expect(JSON.stringify(res.body)).toMatch(/\d{4}\*{8}\d{4}/);
      expect(problemsOf(validatorOf, responseSchema(doc, '/_sim/scenarios', 'get', 200), res.body)).toEqual([]);
    }
  });
});

describe('the OpenAPI document on big /_sim reads and bodies (issue 13)', () => {
  const served = async (sim: Simulator): Promise<OpenApiDoc> => (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as OpenApiDoc;

  it('documents the 413 of a body over 1 MiB on every /_sim call that reads one', async () => {
    const sim = testSimulator();
    const doc = await served(sim);
    const big = JSON.stringify({ now: 'x'.repeat(1024 * 1024) });
    for (const [method, path] of [['put', '/_sim/clock'], ['post', '/_sim/clock/advance'], ['put', '/_sim/scenarios']] as const) {
      const res = await request(handlerOf(sim))[method](path).set('Content-Type', 'application/json').send(big);
      expect([path, res.status, res.body.errorName]).toEqual([path, 413, 'bodyIsTooLarge']);
      expect(problemsOf(schemaValidator(doc), responseSchema(doc, path, method, 413), res.body)).toEqual([]);
    }
    expect(Object.keys((doc.paths['/_sim/state']!.put as { responses: object }).responses)).toContain('413');
  });

  it('documents the pages of /_sim/tokens and /_sim/requests: limit, cursor and next', async () => {
    const sim = testSimulator();
    const api = client(sim);
    for (const cardNumber of ['4444333322221111', '5555555555554444']) await createToken(api, createBody({ cardNumber }));
    const doc = await served(sim);
    const validatorOf = schemaValidator(doc);
    for (const path of ['/_sim/tokens', '/_sim/requests']) {
      const op = doc.paths[path]!.get as { parameters: { name: string }[] };
      expect([path, op.parameters.map((p) => p.name).filter((n) => n === 'limit' || n === 'cursor').sort()]).toEqual([path, ['cursor', 'limit']]);
      const first = await request(handlerOf(sim)).get(`${path}?limit=1`).set('Host', HOST);
      expect(typeof first.body.next).toBe('string');
      expect(problemsOf(validatorOf, responseSchema(doc, path, 'get', 200), first.body)).toEqual([]);
      const last = await request(handlerOf(sim)).get(`${path}?limit=1&cursor=${encodeURIComponent(first.body.next as string)}`).set('Host', HOST);
      expect(last.status).toBe(200);
      expect(problemsOf(validatorOf, responseSchema(doc, path, 'get', 200), last.body)).toEqual([]);
    }
  });
});

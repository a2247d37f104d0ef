import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Router } from 'express';
import request from 'supertest';
import { errorResponse, saleResponse, tokenResponse, clockResponse } from '../../src/http/openapi-schemas.js';
import { run } from '../support/cli.js';
import { sale, saleBody } from '../support/sale.js';
import { ADDRESS, client, createBody, createToken, testSimulator, handlerOf } from '../support/sim.js';

type Doc = { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

/** Every (method, path) the app routes, from Express's router stacks; `:ref` becomes `{tokenRef}`. */
function routesOf(router: Router, prefix = ''): string[] {
  const out: string[] = [];
  for (const layer of (router as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> }; handle: { stack?: unknown }; matchers?: unknown }[] }).stack) {
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(':ref', '{tokenRef}');
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') out.push(`${method.toUpperCase()} ${path}`);
    } else if (layer.handle.stack) {
      out.push(...routesOf(layer.handle as unknown as Router, '/_sim'));
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  const sim = testSimulator({ vendor: 'worldpay' });

  it('is served at /_sim/openapi.json and is a valid OpenAPI 3.1 document', async () => {
    const res = await request(handlerOf(sim)).get('/_sim/openapi.json').set('Host', 'sim.test:9000');
    expect(res.status).toBe(200);
    const doc = res.body as Doc & { servers: { url: string }[] };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]?.url).toBe('http://sim.test:9000');
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
    const served = routesOf(sim.app.router);
    expect(served.length).toBeGreaterThan(15);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('documents the tenant parameter of every /_sim call that takes one, the scenario sets included', async () => {
    const doc = (await request(handlerOf(sim)).get('/_sim/openapi.json')).body as Doc;
    const tenantPaths = Object.entries(doc.paths)
      .filter(([, item]) => ((item.parameters ?? []) as { name: string }[]).some((p) => p.name === 'tenant'))
      .map(([path]) => path)
      .sort();
    expect(tenantPaths).toEqual(['/_sim/clock', '/_sim/clock/advance', '/_sim/requests', '/_sim/reset', '/_sim/scenarios', '/_sim/tokens']);
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

/**
 * Contract 3.3 and 1.1: with `--vendor worldpay` the correlation header is `WP-CorrelationId`, otherwise
 * `Correlation-Id`. Every answer (the API's and /_sim's, decision 0033) carries exactly one, under that name; a
 * sane client id sent under that name is echoed, journaled under it (JSON and HAR) and logged.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import { createSimulator } from '../../src/simulator/compose.js';
import type { Simulator } from '../../src/simulator/facade.js';
import { HOST, START, createBody, handlerOf, pathOf, testSimulator } from '../support/sim.js';

interface Vendor {
  name: string;
  options: { vendor?: string };
  header: string;
  other: string;
  tokenType: string;
}

const VENDORS: Vendor[] = [
  { name: 'the default vendor', options: {}, header: 'Correlation-Id', other: 'WP-CorrelationId', tokenType: 'application/vnd.service.tokens-v1.hal+json' },
  { name: '--vendor worldpay', options: { vendor: 'worldpay' }, header: 'WP-CorrelationId', other: 'Correlation-Id', tokenType: 'application/vnd.worldpay.tokens-v1.hal+json' },
  { name: '--vendor acme', options: { vendor: 'acme' }, header: 'Correlation-Id', other: 'WP-CorrelationId', tokenType: 'application/vnd.acme.tokens-v1.hal+json' },
];

/** The names of the answer's headers that look like a correlation header, as sent (raw, any case). */
function correlationHeaders(res: Response): string[] {
  const raw = (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
  return raw.filter((_v, i) => i % 2 === 0).filter((name) => /correlation/i.test(name));
}

/** Requests of each kind: a created token, a read, API errors of every stage, and /_sim calls. */
function exchanges(sim: Simulator, v: Vendor, headers: Record<string, string> = {}) {
  const api = (t: request.Test): request.Test => {
    let out = t.set('Host', HOST).auth('merchant', 'secret').set('Accept', v.tokenType);
    for (const [name, value] of Object.entries(headers)) out = out.set(name, value);
    return out;
  };
  const control = (t: request.Test): request.Test => {
    let out = t.set('Host', HOST);
    for (const [name, value] of Object.entries(headers)) out = out.set(name, value);
    return out;
  };
  const agent = request(handlerOf(sim));
  return {
    'a 201 create': () => api(agent.post('/tokens')).set('Content-Type', v.tokenType).send(JSON.stringify(createBody())),
    'a 400 create': () => api(agent.post('/tokens')).set('Content-Type', v.tokenType).send('{"merchant": null}'),
    'a 401': () => control(agent.get('/tokens/abc')),
    'a 404 unknown path': () => control(agent.get('/nowhere')),
    'a 405': () => api(agent.patch('/tokens')),
    'GET /_sim/health': () => control(agent.get('/_sim/health')),
    'GET /_sim/clock': () => control(agent.get('/_sim/clock')),
    'a 404 under /_sim': () => control(agent.get('/_sim/nowhere')),
  };
}

describe.each(VENDORS)('the correlation header with $name', (v) => {
  const sim = (): Simulator => testSimulator(v.options);

  it.each(Object.keys(exchanges(testSimulator(), v)))('answers %s with exactly one correlation header, under its name', async (kind) => {
    const res = await exchanges(sim(), v)[kind as keyof ReturnType<typeof exchanges>]();
    expect(correlationHeaders(res)).toEqual([v.header]);
    expect(res.headers[v.header.toLowerCase()]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it.each(Object.keys(exchanges(testSimulator(), v)))('echoes a sane id sent under its name on %s', async (kind) => {
    const res = await exchanges(sim(), v, { [v.header]: 'order-42.retry:1' })[kind as keyof ReturnType<typeof exchanges>]();
    expect(correlationHeaders(res)).toEqual([v.header]);
    expect(res.headers[v.header.toLowerCase()]).toBe('order-42.retry:1');
  });

  it('neither echoes nor journals an id sent under the other name, and answers under its own only', async () => {
    const s = sim();
    const res = await exchanges(s, v, { [v.other]: 'order-42' })['a 201 create']();
    expect(correlationHeaders(res)).toEqual([v.header]);
    expect(res.headers[v.header.toLowerCase()]).not.toBe('order-42');
    const both = await exchanges(s, v, { [v.other]: 'order-43', [v.header]: 'order-44' })['a 201 create']();
    expect(correlationHeaders(both)).toEqual([v.header]);
    expect(both.headers[v.header.toLowerCase()]).toBe('order-44');
    const listed = await request(handlerOf(s)).get('/_sim/requests').set('Host', HOST);
    expect(JSON.stringify(listed.body)).not.toMatch(/order-4[23]/);
    expect(listed.body.requests[1].requestHeaders[v.header]).toBe('order-44');
  });

  it('does not echo an id that is not sane', async () => {
    const res = await exchanges(sim(), v, { [v.header]: 'has spaces' })['a 201 create']();
    expect(res.headers[v.header.toLowerCase()]).not.toBe('has spaces');
  });

  it('journals the client’s id under the header it used, and the answer’s under the same name', async () => {
    const s = sim();
    const created = await exchanges(s, v, { [v.header]: 'client-7' })['a 201 create']();
    await exchanges(s, v)['a 404 unknown path']();
    const listed = await request(handlerOf(s)).get('/_sim/requests').set('Host', HOST);
    expect(correlationHeaders(listed)).toEqual([v.header]);
    const [first, second] = listed.body.requests as { correlationId: string; requestHeaders: Record<string, string>; responseHeaders: Record<string, string> }[];
    expect(first!.correlationId).toBe('client-7');
    expect(first!.requestHeaders[v.header]).toBe('client-7');
    expect(first!.requestHeaders).not.toHaveProperty(v.other);
    expect(Object.keys(first!.responseHeaders)[0]).toBe(v.header);
    expect(first!.responseHeaders[v.header]).toBe(created.headers[v.header.toLowerCase()]);
    expect(first!.responseHeaders).not.toHaveProperty(v.other);
    // No client id: none in the request headers; the answer's generated one under the same name.
    expect(Object.keys(second!.requestHeaders).filter((h) => /correlation/i.test(h))).toEqual([]);
    expect(second!.responseHeaders[v.header]).toBe(second!.correlationId);
  });

  it('journals them under the same name in the HAR export', async () => {
    const s = sim();
    const created = await exchanges(s, v, { [v.header]: 'client-8' })['a 201 create']();
    const har = await request(handlerOf(s)).get('/_sim/requests?format=har').set('Host', HOST);
    const entry = har.body.log.entries[0] as { request: { headers: { name: string; value: string }[] }; response: { headers: { name: string; value: string }[] }; _correlationId: string };
    expect(entry._correlationId).toBe('client-8');
    expect(entry.request.headers.filter((h) => /correlation/i.test(h.name))).toEqual([{ name: v.header, value: 'client-8' }]);
    expect(entry.response.headers.filter((h) => /correlation/i.test(h.name))).toEqual([{ name: v.header, value: created.headers[v.header.toLowerCase()] }]);
  });

  it('masks a card number in a client id sent under its name', async () => {
    const s = sim();
    const res = await exchanges(s, v, { [v.header]: 'id-4444333322221111' })['a 201 create']();
    expect(res.headers[v.header.toLowerCase()]).toBe('id-4444********1111');
    const listed = await request(handlerOf(s)).get('/_sim/requests').set('Host', HOST);
    expect(JSON.stringify(listed.body)).not.toContain('4444333322221111');
    expect(listed.body.requests[0].requestHeaders[v.header]).toBe('id-4444********1111');
  });

  it.each(['json', 'pretty'] as const)('logs the id the answer carries, API and /_sim alike, with --log %s', async (log) => {
    const lines: string[] = [];
    const s = createSimulator({ seed: 'test', now: START, frozen: true, log, ...v.options }, { writeErr: (l) => lines.push(l) });
    const created = await exchanges(s, v, { [v.header]: 'client-9' })['a 201 create']();
    const health = await exchanges(s, v)['GET /_sim/health']();
    expect(created.headers[v.header.toLowerCase()]).toBe('client-9');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('client-9');
    expect(lines[1]).toContain(health.headers[v.header.toLowerCase()]);
  });
});

it('reads the token it created under --vendor worldpay with the WP-CorrelationId echoed', async () => {
  const sim = testSimulator({ vendor: 'worldpay' });
  const type = 'application/vnd.worldpay.tokens-v1.hal+json';
  const agent = request(handlerOf(sim));
  const created = await agent.post('/tokens').set('Host', HOST).auth('merchant', 'secret').set('Accept', type).set('Content-Type', type).send(JSON.stringify(createBody()));
  const href = (created.body as { _links: { 'tokens:token': { href: string } } })._links['tokens:token'].href;
  const read = await agent.get(pathOf(href)).set('Host', HOST).auth('merchant', 'secret').set('Accept', type).set('WP-CorrelationId', 'checkout-1');
  expect(read.status).toBe(200);
  expect(read.headers['wp-correlationid']).toBe('checkout-1');
  expect(read.headers).not.toHaveProperty('correlation-id');
});

it.each([
  ['WorldPay', 'WP-CorrelationId'],
  ['WORLDPAY', 'WP-CorrelationId'],
  ['worldpay.com', 'Correlation-Id'],
  ['constructor', 'Correlation-Id'],
  ['service', 'Correlation-Id'],
])('names the correlation header after --vendor %s: %s', async (vendor, header) => {
  const res = await request(handlerOf(testSimulator({ vendor }))).get('/_sim/health').set('Host', HOST);
  expect(correlationHeaders(res)).toEqual([header]);
});

/**
 * Safe on a laptop (contract 4.1, decision 0042): a web page can neither rebind its name to the simulator
 * (the Host check: API, /_sim and dashboard) nor write to /_sim from another site (Origin, Sec-Fetch-Site,
 * untyped and form-typed bodies). What is allowed keeps working.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createBody, handlerOf, testSimulator, TOKEN_TYPE } from '../support/sim.js';
import type { Simulator } from '../../src/simulator/facade.js';

const HOST_REFUSED = { errorName: 'headerHasInvalidValue', headerName: 'Host' };

async function oneToken(sim: Simulator): Promise<void> {
  const res = await request(handlerOf(sim))
    .post('/tokens')
    .auth('merchant', 'secret')
    .set('Content-Type', TOKEN_TYPE)
    .set('Accept', TOKEN_TYPE)
    .send(JSON.stringify(createBody()));
  expect(res.status).toBe(201);
}

describe('the Host check', () => {
  it.each<[string, (t: request.SuperTest<request.Test>) => request.Test]>([
    ['GET /_sim/state', (t) => t.get('/_sim/state')],
    ['GET /_sim/tokens', (t) => t.get('/_sim/tokens')],
    ['GET /_sim/requests', (t) => t.get('/_sim/requests')],
    ['GET /_sim/ui', (t) => t.get('/_sim/ui').set('Accept', 'text/html')],
    ['GET /_sim/ui/ (an asset path)', (t) => t.get('/_sim/ui/')],
    ['GET /_sim/health', (t) => t.get('/_sim/health')],
    ['GET /tokens/<ref> (the API)', (t) => t.get('/tokens/abc').auth('merchant', 'secret').set('Accept', TOKEN_TYPE)],
    ['POST /tokens (the API)', (t) => t.post('/tokens').auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Content-Type', TOKEN_TYPE).send('{}')],
    ['GET / (no endpoint)', (t) => t.get('/nothing-here')],
  ])('refuses %s with 403 when Host names a rebound name', async (_name, call) => {
    const sim = testSimulator();
    const res = await call(request(handlerOf(sim)) as unknown as request.SuperTest<request.Test>).set('Host', 'evil.example:8080');
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject(HOST_REFUSED);
    expect(JSON.parse(res.text).message).toContain('--allowed-host');
  });

  it('refuses PUT /_sim/scenarios on a rebound Host and loads nothing', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim))
      .put('/_sim/scenarios')
      .set('Host', 'evil.example')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'outage', rules: [{ when: { operation: 'any' }, then: { error: { status: 503, errorName: 'serviceUnavailable' } } }] }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject(HOST_REFUSED);
    expect(sim.scenarios()).toEqual([]);
  });

  it.each([
    'localhost',
    'localhost:8080',
    'LocalHost:1',
    'tokens.localhost:8080',
    '127.0.0.1:8080',
    '10.1.2.3',
    '[::1]:8080',
    '[::1]',
    'token-sim:8080',
    'payments-sandbox',
  ])('answers a Host of %s', async (host) => {
    const res = await request(handlerOf(testSimulator())).get('/_sim/clock').set('Host', host);
    expect(res.status).toBe(200);
  });

  it.each(['evil.example', 'localhost.evil.example', '127.0.0.1.nip.io:8080', 'a b', '[::1', 'sim.example:99999999', 'evil.'])(
    'refuses a Host of %s',
    async (host) => {
      const res = await request(handlerOf(testSimulator())).get('/_sim/clock').set('Host', host);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject(HOST_REFUSED);
    },
  );

  it('answers the names given with allowedHosts, --host and --base-url, and only those', async () => {
    const sim = testSimulator({ allowedHosts: ['sandbox.example.com', 'Other.Example'], host: 'my-box.lan', baseUrl: 'https://try.example.net/base' });
    for (const host of ['sandbox.example.com', 'SANDBOX.example.com:9', 'other.example', 'my-box.lan:8080', 'try.example.net']) {
      expect([host, (await request(handlerOf(sim)).get('/_sim/clock').set('Host', host)).status]).toEqual([host, 200]);
    }
    expect((await request(handlerOf(sim)).get('/_sim/clock').set('Host', 'evil.example.com')).status).toBe(403);
  });

  it('answers any Host with allowedHosts *', async () => {
    const res = await request(handlerOf(testSimulator({ allowedHosts: ['*'] }))).get('/_sim/clock').set('Host', 'evil.example');
    expect(res.status).toBe(200);
  });

  it('journals a refused API request like any other refusal', async () => {
    const sim = testSimulator();
    await request(handlerOf(sim)).get('/tokens/abc').auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Host', 'evil.example');
    const [entry] = sim.requests();
    expect(entry).toMatchObject({ status: 403 });
  });
});

describe('cross-site writes to /_sim', () => {
  it('refuses an empty POST /_sim/reset from a foreign Origin (403 Origin) and deletes nothing', async () => {
    const sim = testSimulator();
    await oneToken(sim);
    // curl -X POST $SIM/_sim/reset -H 'Origin: http://evil.example' --data ''
    const res = await request(handlerOf(sim)).post('/_sim/reset').set('Origin', 'http://evil.example').set('Content-Type', 'application/x-www-form-urlencoded').send('');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Origin' });
    expect(sim.tokens()).toHaveLength(1);
  });

  it('refuses a form-typed POST /_sim/reset even when empty and without Origin (415)', async () => {
    const sim = testSimulator();
    await oneToken(sim);
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain;charset=UTF-8']) {
      const res = await request(handlerOf(sim)).post('/_sim/reset').set('Content-Type', type).send('');
      expect([type, res.status, res.body.errorName, res.body.headerName]).toEqual([type, 415, 'headerHasInvalidValue', 'Content-Type']);
    }
    expect(sim.tokens()).toHaveLength(1);
  });

  it('refuses a text/plain clock advance (the no-preflight fetch) with 415 and leaves the clock', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Content-Type', 'text/plain').send('{"by":"P400D"}');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Content-Type' });
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('refuses a body without a type, or of another type, with 415', async () => {
    const sim = testSimulator();
    const untyped = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Content-Length', '12').send(Buffer.from('{"by":"P1D"}'));
    expect(untyped.status).toBe(415);
    const octets = await request(handlerOf(sim)).post('/_sim/reset').set('Content-Type', 'application/octet-stream').send(Buffer.from('x'));
    expect(octets.status).toBe(415);
    const yaml = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Content-Type', 'application/yaml').send('by: P1D');
    expect(yaml.status).toBe(415);
    expect(yaml.body.message).toBe('A /_sim body must be sent with Content-Type: application/json; got application/yaml');
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('refuses Sec-Fetch-Site: cross-site (403) even without Origin', async () => {
    const sim = testSimulator();
    const res = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Sec-Fetch-Site', 'cross-site').send({ by: 'P1D' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Sec-Fetch-Site' });
    expect(sim.clock.now()).toBe('2030-01-01T00:00:00Z');
  });

  it('keeps a plain POST /_sim/reset (no body, no type) working', async () => {
    const sim = testSimulator();
    await oneToken(sim);
    expect((await request(handlerOf(sim)).post('/_sim/reset')).status).toBe(204);
    expect(sim.tokens()).toHaveLength(0);
  });

  it("takes a write from the page's own origin, same-origin and same-site fetches, and JSON bodies", async () => {
    const sim = testSimulator();
    const own = await request(handlerOf(sim))
      .post('/_sim/clock/advance')
      .set('Host', 'localhost:8080')
      .set('Origin', 'http://localhost:8080')
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ by: 'P1D' });
    expect(own.status).toBe(200);
    const json = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Content-Type', 'application/json; charset=utf-8').send('{"by":"P1D"}');
    expect(json.status).toBe(200);
    expect(sim.clock.now()).toBe('2030-01-03T00:00:00Z');
  });

  it('takes writes from allowedOrigins, cross-site or not, and refuses other origins', async () => {
    const sim = testSimulator({ allowedOrigins: ['http://localhost:3000'] });
    const allowed = await request(handlerOf(sim))
      .post('/_sim/clock/advance')
      .set('Origin', 'http://localhost:3000')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ by: 'P1D' });
    expect(allowed.status).toBe(200);
    const other = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Origin', 'http://localhost:3001').send({ by: 'P1D' });
    expect(other.status).toBe(403);
    const opaque = await request(handlerOf(sim)).post('/_sim/clock/advance').set('Origin', 'null').send({ by: 'P1D' });
    expect(opaque.status).toBe(403);
    expect(sim.clock.now()).toBe('2030-01-02T00:00:00Z');
  });

  it('lets reads through whatever their Origin (a page cannot read the answer without CORS)', async () => {
    const res = await request(handlerOf(testSimulator())).get('/_sim/clock').set('Origin', 'http://evil.example').set('Sec-Fetch-Site', 'cross-site');
    expect(res.status).toBe(200);
  });

  it('takes YAML on PUT /_sim/scenarios, and tells YAML sent as JSON to send it as YAML', async () => {
    const sim = testSimulator();
    const text = 'name: outage\nrules:\n  - when: { operation: any }\n    then: { error: { status: 503, errorName: serviceUnavailable } }\n';
    const asJson = await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', 'application/json').send(text);
    expect(asJson.status).toBe(400);
    expect(asJson.body).toEqual({
      errorName: 'bodyIsNotJson',
      message: 'The scenario is not valid JSON; a YAML scenario goes with Content-Type: application/yaml',
    });
    const asYaml = await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', 'text/yaml').send(text);
    expect(asYaml.status).toBe(200);
    expect(sim.scenarios().map((s) => s.name)).toEqual(['outage']);
  });
});

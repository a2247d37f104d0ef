/** Limits on what a client can make the simulator hold, exposure warnings, and stopping cleanly. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startSimulator } from '../../src/index.js';
import { jsonDepth } from '../../src/wire/json.js';
import { listening, run } from '../support/cli.js';
import { HOST, TOKEN_TYPE, testSimulator, handlerOf } from '../support/sim.js';

describe('limits', () => {
  it('counts JSON nesting outside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[["}]}')).toBe(3);
    expect(jsonDepth('"{{{{"')).toBe(0);
    expect(jsonDepth('{"a":"\\"[["}')).toBe(1);
  });

  it.each(['/tokens', '/_sim/state'])('answers JSON nested past the limit with 400 and the standard body at %s', async (path) => {
    const sim = testSimulator();
    const deep = `${'['.repeat(64 + 1)}${']'.repeat(64 + 1)}`;
    const base = path === '/tokens' ? request(handlerOf(sim)).post(path).auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Content-Type', TOKEN_TYPE) : request(handlerOf(sim)).put(path);
    const res = await base.set('Host', HOST).send(deep);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors[0]).toMatchObject({ errorName: 'fieldHasInvalidValue', jsonPath: '$' });
  });

  it('refuses a million levels of nesting without a stack overflow', async () => {
    const sim = testSimulator();
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const res = await request(handlerOf(sim)).post('/tokens').auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Content-Type', TOKEN_TYPE).send(deep);
    expect(res.status).toBe(400);
  });

  it('sets header, request and keep-alive timeouts on the server', async () => {
    const sim = await startSimulator({ port: 0 }, { writeErr: () => undefined });
    try {
      expect(sim.server.headersTimeout).toBe(10_000);
      expect(sim.server.requestTimeout).toBe(30_000);
      expect(sim.server.keepAliveTimeout).toBe(5_000);
    } finally {
      await sim.close();
    }
  });
});

describe('exposure', () => {
  it('warns on start when bound to a non-loopback address without --admin-token', async () => {
    const lines: string[] = [];
    const open = await startSimulator({ port: 0, host: '0.0.0.0' }, { writeErr: (l) => lines.push(l) });
    await open.close();
    expect(lines.join('\n')).toMatch(/warning: listening on 0\.0\.0\.0.*--admin-token/);
    lines.length = 0;
    const guarded = await startSimulator({ port: 0, host: '0.0.0.0', adminToken: 't' }, { writeErr: (l) => lines.push(l) });
    await guarded.close();
    const local = await startSimulator({ port: 0, host: '127.0.0.1' }, { writeErr: (l) => lines.push(l) });
    await local.close();
    expect(lines).toEqual([]);
  });
});

describe('stopping', () => {
  const slow = JSON.stringify({ name: 'slow', rules: [{ when: { operation: 'getToken' }, then: { delayMs: 400 } }, { when: { operation: 'sale' }, then: { fault: 'noResponse' } }] });
  const auth = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;

  it('SIGTERM lets a request in a scripted delay finish, does not wait for a noResponse, and exits 0 promptly', async () => {
    const r = run(['--port', '0', '--log', 'silent', '--seed', 'stop', '--now', '2030-01-01T00:00:00Z', '--frozen']);
    const url = await listening(r);
    await fetch(`${url}/_sim/scenarios`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: slow });
    const created = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { Authorization: auth, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE },
      body: JSON.stringify({ paymentInstrument: { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 1, year: 2031 } }, merchant: { entity: 'default' } }),
    });
    const href = created.headers.get('location')!;
    const hung = fetch(`${url}/payments/sales/migrateCardOnFile`, {
      method: 'POST',
      headers: { Authorization: auth, Accept: 'application/vnd.service.payments-v5.hal+json', 'Content-Type': 'application/vnd.service.payments-v5+json' },
      body: JSON.stringify({ instruction: { value: { amount: 1, currency: 'GBP' }, narrative: { line1: 'x' }, paymentInstrument: { type: 'card/token', href } }, merchant: { entity: 'default' }, transactionReference: 't' }),
    }).then(
      (res) => `answered ${res.status}`,
      () => 'closed',
    );
    const delayed = fetch(href, { headers: { Authorization: auth, Accept: TOKEN_TYPE } });
    // Both requests have arrived once both rules have counted them.
    const arrived = async (): Promise<boolean> => {
      const state = (await (await fetch(`${url}/_sim/state`)).json()) as { counters: { scenarios: Record<string, { merchant?: { matches: number } }> } };
      return Object.values(state.counters.scenarios).filter((c) => (c.merchant?.matches ?? 0) > 0).length === 2;
    };
    while (!(await arrived()));
    const stoppedAt = performance.now();
    r.child.kill('SIGTERM');
    expect((await delayed).status).toBe(200);
    expect(await hung).toBe('closed');
    expect(await r.exited).toBe(0);
    expect(performance.now() - stoppedAt).toBeLessThan(5_000);
  });
});

/** Limits on what a client can make the simulator hold, and exposure warnings. */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startSimulator } from '../../src/simulator/server.js';
import { jsonDepth } from '../../src/wire/json.js';
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
    const base = path === '/tokens' ? request(handlerOf(sim)).post(path).auth('merchant', 'secret').set('Accept', TOKEN_TYPE).set('Content-Type', TOKEN_TYPE) : request(handlerOf(sim)).put(path).set('Content-Type', 'application/json');
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

/**
 * The control table (src/http/admin/table.ts) against what /_sim serves: each row answers (no 404
 * endpointNotFound, no 405), a row's path answers any other method 405 with the rows' methods in `Allow`,
 * an undeclared path answers endpointNotFound, and who may call each row is who gets through. This file keeps
 * its own copy of the rows it expects.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CONTROL_TABLE } from '../../src/http/admin/table.js';
import { handlerOf, testSimulator } from '../support/sim.js';

/** Method, path (Express form) and who may call it. */
const ROWS: [string, string, string][] = [
  ['GET', '/health', 'open'],
  ['GET', '/clock', 'tenant'],
  ['PUT', '/clock', 'tenant'],
  ['POST', '/clock/advance', 'tenant'],
  ['POST', '/reset', 'tenant'],
  ['GET', '/tokens', 'tenant'],
  ['GET', '/requests', 'tenant'],
  ['DELETE', '/requests', 'tenant'],
  ['GET', '/state', 'tenant'],
  ['PUT', '/state', 'tenant'],
  ['GET', '/scenarios', 'tenant'],
  ['PUT', '/scenarios', 'tenant'],
  ['DELETE', '/scenarios', 'tenant'],
  ['GET', '/webhooks', 'tenant'],
  ['POST', '/webhooks/flush', 'tenant'],
  ['POST', '/webhooks/:id/resend', 'tenant'],
  ['GET', '/metrics', 'admin'],
  ['GET', '/tenants', 'tenant'],
  ['GET', '/payments', 'tenant'],
  ['POST', '/payments/:paymentId/refund', 'tenant'],
  ['POST', '/payments/:paymentId/reversal', 'tenant'],
  ['DELETE', '/tokens/:tokenId', 'tenant'],
  ['GET', '/requests/stream', 'stream'],
  ['GET', '/openapi.json', 'tenant'],
  ['GET', '/magic-values', 'tenant'],
];

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];
const BASIC = `Basic ${Buffer.from('alice:pa').toString('base64')}`;

/** A row's URL: path parameters filled, the tenant named (some rows need one). */
const urlOf = (path: string): string => `/_sim${path.replace(/:\w+/g, 'nothing-here')}?tenant=alice`;

const servers: Server[] = [];
const listening = new WeakMap<object, Server>();
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/**
 * The status and errorName of one call, over a real socket: the live journal's answer never ends, so only
 * its head is read.
 */
async function answer(sim: ReturnType<typeof testSimulator>, method: string, url: string, headers: Record<string, string> = {}): Promise<[number, string | undefined]> {
  let server = listening.get(sim);
  if (server === undefined) {
    server = createServer(handlerOf(sim));
    servers.push(server);
    listening.set(sim, server);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  }
  const abort = new AbortController();
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${url}`, {
    method,
    headers: { ...headers, ...(method === 'PUT' && { 'Content-Type': 'application/json' }) },
    ...(method === 'PUT' && { body: '{}' }),
    signal: abort.signal,
  });
  if (res.headers.get('content-type') === 'text/event-stream') {
    abort.abort();
    return [res.status, undefined];
  }
  const text = await res.text();
  return [res.status, text.startsWith('{') ? (JSON.parse(text) as { errorName?: string }).errorName : undefined];
}

describe('the control table', () => {
  it('declares each /_sim call once, with who may call it', () => {
    expect(CONTROL_TABLE.map((op) => [op.method, op.path, op.access])).toEqual(ROWS);
  });

  it('serves every row: none answers endpointNotFound or 405', async () => {
    const sim = testSimulator({ users: ['alice:pa'] });
    for (const [method, path] of ROWS) {
      const [status, errorName] = await answer(sim, method, urlOf(path));
      expect([method, path, status === 405 || errorName === 'endpointNotFound']).toEqual([method, path, false]);
    }
  });

  it("answers 405 with the path's rows' methods in Allow to any other method", async () => {
    const sim = testSimulator();
    for (const path of new Set(ROWS.map(([, p]) => p))) {
      const allow = ROWS.filter(([, p]) => p === path).map(([m]) => m);
      for (const method of METHODS.filter((m) => !allow.includes(m))) {
        const res = await request(handlerOf(sim))[method.toLowerCase() as 'get'](urlOf(path));
        expect([method, path, res.status, res.headers.allow, res.body.errorName]).toEqual([method, path, 405, allow.join(', '), 'methodNotAllowed']);
      }
    }
  });

  it('answers endpointNotFound to every path no row declares', async () => {
    const sim = testSimulator();
    for (const path of ['/_sim', '/_sim/nope', '/_sim/clock/back', '/_sim/tokens/a/b', '/_sim/payments/p/refunds', '/_sim/health/x', '/_sim/requests/streams']) {
      const res = await request(handlerOf(sim)).get(path);
      expect([path, res.status, res.body.errorName]).toEqual([path, 404, 'endpointNotFound']);
    }
  });

  it('lets through who each row says may call: the admin token, and a tenant’s Basic credentials on tenant rows only', async () => {
    const sim = testSimulator({ users: ['alice:pa'], adminToken: 'admin-secret' });
    for (const [method, path, access] of ROWS) {
      const url = urlOf(path);
      const none = await answer(sim, method, url);
      const admin = await answer(sim, method, url, { Authorization: 'Bearer admin-secret' });
      const tenant = await answer(sim, method, url, { Authorization: BASIC });
      const query = await answer(sim, method, `${url}&access_token=admin-secret`);
      const through = (a: [number, string | undefined]): boolean => a[1] !== 'accessDenied' && a[1] !== 'operationIsNotAllowed';
      expect([method, path, through(none), through(admin), through(tenant), through(query)]).toEqual([
        method,
        path,
        access === 'open',
        true,
        access !== 'admin',
        access === 'open' || access === 'stream',
      ]);
    }
  });
});

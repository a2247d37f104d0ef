/**
 * Whether a request has a body, as the API's Content-Type check and /_sim's cross-site guard read it: the same way.
 * `Content-Length: 00` is no body, as `0` is (node reads both as 0), so neither asks for a Content-Type.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { handlerOf, testSimulator, TOKEN_TYPE } from '../support/sim.js';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer(handlerOf(testSimulator()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A POST with exactly these headers (node sends a Content-Length as given) and no body bytes. */
function post(path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { Host: 'localhost', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const API = { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN_TYPE };

describe('a request without body bytes', () => {
  it.each([['0', 'bodyIsEmpty'], ['00', 'bodyIsEmpty']])('POST /tokens with Content-Length: %s and no Content-Type answers 400 %s', async (length, errorName) => {
    const res = await post('/tokens', { ...API, 'Content-Length': length });
    expect(res.status).toBe(400);
    expect(res.body.errorName).toBe(errorName);
  });

  it.each(['0', '00'])('POST /_sim/reset with Content-Length: %s and no Content-Type is not refused by the guard (204)', async (length) => {
    const res = await post('/_sim/reset', { 'Content-Length': length });
    expect(res.status).toBe(204);
  });

});

/**
 * The simulator's one request listener (decision 0046): `app` and `listener` are one function, which writes
 * the golden 201 byte for byte, and reads every request target as a router would (case, trailing slash,
 * query, fragment, absolute form, percent-encoding), as the Express router it replaced did.
 */
import { createServer, type RequestListener } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { createSimulator } from '../../src/index.js';

const TOKEN = 'application/vnd.service.tokens-v1.hal+json';
const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
const CREATE = JSON.stringify({
  paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
  merchant: { entity: 'default' },
});

/** One raw HTTP/1.1 exchange on a fresh connection; the answer without its Date header. */
async function exchange(port: number, head: string, body = ''): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  const length = body === '' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  socket.end(`${head}\r\nHost: token-sim.localhost\r\nConnection: close\r\n${length}\r\n${body}`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/^Date: .*\r\n/m, '');
}

/** The conversation: every kind of answer, the refs taken from the answers themselves. */
async function conversation(listener: RequestListener): Promise<string[]> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const api = (line: string, extra = ''): string => `${line} HTTP/1.1\r\nAuthorization: ${AUTH}\r\nAccept: ${TOKEN}${extra}`;
  try {
    const answers: string[] = [];
    const created = await exchange(port, api('POST /tokens', `\r\nContent-Type: ${TOKEN}`), CREATE);
    answers.push(created);
    const links = (JSON.parse(created.slice(created.indexOf('\r\n\r\n') + 4)) as { _links: Record<string, { href: string }> })._links;
    const path = (rel: string): string => new URL(links[rel]!.href).pathname;
    answers.push(await exchange(port, api(`GET ${path('tokens:token')}`)));
    answers.push(await exchange(port, api(`PUT ${path('tokens:description')}`, `\r\nContent-Type: ${TOKEN}`), '"Second card"'));
    answers.push(await exchange(port, api(`GET ${path('tokens:token')}`)));
    answers.push(await exchange(port, api(`PUT ${path('tokens:token')}`, `\r\nContent-Type: ${TOKEN}`), '"x"'));
    answers.push(await exchange(port, api('POST /tokens', `\r\nContent-Type: ${TOKEN}`), '{"paymentInstrument":{}}'));
    answers.push(await exchange(port, api('POST /tokens', '\r\nContent-Type: text/plain'), CREATE));
    answers.push(await exchange(port, `GET ${path('tokens:token')} HTTP/1.1\r\nAuthorization: Basic bWVyY2hhbnQ6d3Jvbmc=\r\nAccept: ${TOKEN}`));
    answers.push(await exchange(port, api('GET /tokens/%E0%A4%A')));
    answers.push(await exchange(port, api('GET /tokens/network')));
    answers.push(await exchange(port, api('GET /tokens')));
    const { tokenId } = JSON.parse(created.slice(created.indexOf('\r\n\r\n') + 4)) as { tokenId: string };
    answers.push(await exchange(port, api(`GET /tokens?tokenId=${tokenId}&namespace=`)));
    answers.push(await exchange(port, api(`GET /tokens?tokenId=${tokenId}`)));
    answers.push(await exchange(port, api('GET /nowhere')));
    answers.push(await exchange(port, api(`DELETE ${path('tokens:token')}`)));
    answers.push(await exchange(port, api(`GET ${path('tokens:token')}`)));
    return answers;
  } finally {
    server.close();
  }
}

const simulator = () => createSimulator({ seed: 'golden', now: '2030-01-01T00:00:00Z', frozen: true }, { writeErr: () => undefined });

/** Request targets, and the status and errorName (or body) each gets with an API Accept and with a browser's. */
const TARGETS: [string, number, string, number, string][] = [
  ["GET /tokens", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /TOKENS/", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens/", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens/abc/", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens/abc/def", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /Tokens/abc", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens/%2F", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens/%E0%A4%A", 400, "urlContainsInvalidValue", 400, "urlContainsInvalidValue"],
  ["GET //tokens", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /tokens#x", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /tokens?x=1#y", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET http://token-sim.localhost/tokens", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET http://evil.example/tokens", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["OPTIONS *", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET *", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /", 404, "endpointNotFound", 303, "See /_sim/ui"],
  ["HEAD /", 404, "", 303, ""],
  ["GET /nowhere", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["PATCH /tokens", 405, "methodNotAllowed", 405, "methodNotAllowed"],
  ["PATCH /tokens/abc", 405, "methodNotAllowed", 405, "methodNotAllowed"],
  ["DELETE /tokens", 405, "methodNotAllowed", 405, "methodNotAllowed"],
  ["HEAD /tokens", 400, "", 406, ""],
  ["GET /payments/events/abc", 406, "headerHasInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /PAYMENTS/EVENTS/abc/", 406, "headerHasInvalidValue", 406, "headerHasInvalidValue"],
  ["POST /payments/sales/migrateCardOnFile/", 406, "headerHasInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /payments/sales/migrateCardOnFile", 405, "methodNotAllowed", 405, "methodNotAllowed"],
  ["GET /payments/", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /payments/events/", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /_simx", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /_", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /_/x", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /tokens/a%20b", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /%", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /tokens%2Fabc", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /./tokens", 404, "endpointNotFound", 404, "endpointNotFound"],
  ["GET /tokens/..", 400, "urlContainsInvalidValue", 406, "headerHasInvalidValue"],
  ["GET /a/../tokens", 404, "endpointNotFound", 404, "endpointNotFound"],
];

async function statuses(listener: RequestListener, accept: string): Promise<[number, string][]> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const out: [number, string][] = [];
    for (const [line] of TARGETS) {
      const answer = await exchange(port, `${line} HTTP/1.1\r\nAuthorization: ${AUTH}\r\nAccept: ${accept}`);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      let name: string;
      try {
        name = (JSON.parse(body) as { errorName?: string }).errorName ?? '';
      } catch {
        name = body.trim();
      }
      out.push([Number(answer.split(' ')[1]), name]);
    }
    return out;
  } finally {
    server.close();
  }
}

describe('the one listener', () => {
  it('is both app and listener', () => {
    const sim = simulator();
    expect(sim.app).toBe(sim.listener);
  });

  it('writes the golden 201: status line, headers and body bytes', async () => {
    const [created] = await conversation(simulator().listener);
    const [head, body] = created!.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual([
      'HTTP/1.1 201 Created',
      'Correlation-Id: 193afc00-fea9-5770-4c3e-000000000001',
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      'Location: http://token-sim.localhost/tokens/EyF2UReRbF4YKfP5kBy7uQ',
      `Accept: ${TOKEN}`,
      `Content-Type: ${TOKEN}`,
      'Content-Length: 1122',
      'Connection: close',
    ]);
    expect(body).toBe(GOLDEN_BODY);
  });

  it('answers a seeded conversation of every kind of answer', async () => {
    const answers = await conversation(simulator().listener);
    expect(answers.map((a) => a.split('\r\n')[0])).toEqual([
      'HTTP/1.1 201 Created', 'HTTP/1.1 200 OK', 'HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK', 'HTTP/1.1 405 Method Not Allowed', 'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 415 Unsupported Media Type', 'HTTP/1.1 401 Unauthorized', 'HTTP/1.1 400 Bad Request', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 400 Bad Request', 'HTTP/1.1 200 OK', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 204 No Content', 'HTTP/1.1 404 Not Found',
    ]);
  });

  it.each([
    ['an API client', TOKEN, 1],
    ['a browser', 'text/html', 3],
  ] as const)('reads every request target as a router would, for %s', async (_who, accept, column) => {
    const got = await statuses(simulator().listener, accept);
    expect(TARGETS.map(([line], i) => [line, ...got[i]!])).toEqual(TARGETS.map((row) => [row[0], row[column], row[column + 1]]));
  });
});

/** Recorded from seed 'golden' (the same ids and refs as the golden test in test/http/tokens-lifecycle.test.ts). */
const GOLDEN_BODY =
  '{"tokenPaymentInstrument":{"type":"card/tokenized","href":"http://token-sim.localhost/tokens/EyF2UReRbF4YKfP5kBy7uQ"},"tokenId":"9981200627035599425","description":"Card ending 1111","tokenExpiryDateTime":"2030-01-08T00:00:00Z","paymentInstrument":{"type":"card/masked","cardNumber":"4444********1111","cardExpiryDate":{"month":5,"year":2035},"cardHolderName":"Sherlock Holmes","networkType":"VISA","last4Digits":"1111","countryCode":"GB","credit":null},"_links":{"tokens:token":{"href":"http://token-sim.localhost/tokens/EyF2UReRbF4YKfP5kBy7uQ"},"tokens:description":{"href":"http://token-sim.localhost/tokens/A9r95RdvwlIKLczg-0x7aw"},"tokens:cardHolderName":{"href":"http://token-sim.localhost/tokens/M2Hd0d4ByzTKGsFnC5TVhQ"},"tokens:cardExpiryDate":{"href":"http://token-sim.localhost/tokens/b9wZm_aiUJhbJkZFDjeQ9A"},"tokens:billingAddress":{"href":"http://token-sim.localhost/tokens/xdJfjSsyZ7zgKBTYCnummQ"},"tokens:schemeTransactionReference":{"href":"http://token-sim.localhost/tokens/VfV6H0TAuIZvohA_TvMZuA"},"curies":[{"href":"http://token-sim.localhost/rels/tokens/{rel}.json","name":"tokens","templated":true}]}}';

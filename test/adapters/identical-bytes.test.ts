/**
 * The node:http lane and the Express adapter answer byte for byte alike: the same seeded conversation sent
 * to each over a raw socket gives the same status lines, headers (but Date) and bodies.
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

describe('the two adapters', () => {
  it('answer a seeded conversation with identical bytes, Date aside', async () => {
    const lane = await conversation(simulator().listener);
    const express = await conversation(simulator().app);
    expect(lane).toHaveLength(16);
    for (let i = 0; i < lane.length; i++) expect(`${i}: ${express[i]}`).toBe(`${i}: ${lane[i]}`);
  });

  it('both write the golden 201: status line, headers and body bytes', async () => {
    for (const listener of [simulator().listener, simulator().app]) {
      const [created] = await conversation(listener);
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
    }
  });
});

/** Recorded from seed 'golden' (the same ids and refs as the golden test in test/http/tokens-lifecycle.test.ts). */
const GOLDEN_BODY =
  '{"tokenPaymentInstrument":{"type":"card/tokenized","href":"http://token-sim.localhost/tokens/EyF2UReRbF4YKfP5kBy7uQ"},"tokenId":"9981200627035599425","description":"Card ending 1111","tokenExpiryDateTime":"2030-01-08T00:00:00Z","paymentInstrument":{"type":"card/masked","cardNumber":"4444********1111","cardExpiryDate":{"month":5,"year":2035},"cardHolderName":"Sherlock Holmes","networkType":"VISA","last4Digits":"1111","countryCode":"GB","credit":null},"_links":{"tokens:token":{"href":"http://token-sim.localhost/tokens/EyF2UReRbF4YKfP5kBy7uQ"},"tokens:description":{"href":"http://token-sim.localhost/tokens/A9r95RdvwlIKLczg-0x7aw"},"tokens:cardHolderName":{"href":"http://token-sim.localhost/tokens/M2Hd0d4ByzTKGsFnC5TVhQ"},"tokens:cardExpiryDate":{"href":"http://token-sim.localhost/tokens/b9wZm_aiUJhbJkZFDjeQ9A"},"tokens:billingAddress":{"href":"http://token-sim.localhost/tokens/xdJfjSsyZ7zgKBTYCnummQ"},"tokens:schemeTransactionReference":{"href":"http://token-sim.localhost/tokens/VfV6H0TAuIZvohA_TvMZuA"},"curies":[{"href":"http://token-sim.localhost/rels/tokens/{rel}.json","name":"tokens","templated":true}]}}';

/** Socket faults need a real socket: these tests start the simulator on a loopback port. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { startSimulator, type StartedSimulator } from '../../src/simulator/server.js';
import { SALE_PATH, SALE_REQUEST, SALE_RESPONSE, saleBody } from '../support/sale.js';
import { TOKEN_TYPE, createBody, eventually, scenarioFile } from '../support/sim.js';

const AUTH = `Basic ${Buffer.from('merchant:secret').toString('base64')}`;
let sim: StartedSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(scenario: string): Promise<StartedSimulator> {
  sim = await startSimulator({ port: 0, seed: 'faults', now: '2030-01-01T00:00:00Z', frozen: true, scenarios: [scenarioFile(scenario)] }, { writeErr: () => undefined });
  return sim;
}

interface Outcome {
  status?: number;
  error?: string;
}

/** One request on a fresh connection; resolves with its status or its socket error. */
function send(s: StartedSimulator, method: string, path: string, headers: Record<string, string>, body?: string, timeoutMs?: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpRequest(`${s.url}${path}`, { method, headers: { ...headers, Connection: 'close' }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

const createToken = (s: StartedSimulator) =>
  fetch(`${s.url}/tokens`, { method: 'POST', headers: { Authorization: AUTH, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE }, body: JSON.stringify(createBody()) });

const saleOf = (amount: number): string => {
  const body = saleBody();
  (body.instruction as { value: { amount: number } }).value.amount = amount;
  return JSON.stringify(body);
};
const saleHeaders = { Authorization: AUTH, Accept: SALE_RESPONSE, 'Content-Type': SALE_REQUEST };

describe('socket faults', () => {
  it('connection-reset.yaml: the second token read loses its connection, the server carries on', async () => {
    const s = await start('connection-reset.yaml');
    const href = new URL(((await (await createToken(s)).json()) as { tokenPaymentInstrument: { href: string } }).tokenPaymentInstrument.href).pathname;
    const read = () => send(s, 'GET', href, { Authorization: AUTH, Accept: TOKEN_TYPE });
    expect(await read()).toEqual({ status: 200 });
    expect((await read()).error).toMatch(/ECONNRESET|socket hang up/i);
    expect(await read()).toEqual({ status: 200 });
    const journal = s.requests().map((r) => [r.operation, r.status, r.errorName ?? null, r.rule]);
    expect(journal).toContainEqual(['getToken', 0, 'connectionReset', 'reset-second-read']);
  });

  it('no-response.yaml: a held request does not hold up others, and is released when the client gives up', async () => {
    const s = await start('no-response.yaml');
    const held = send(s, 'POST', SALE_PATH, saleHeaders, saleOf(99999), 300);
    expect(await send(s, 'POST', SALE_PATH, saleHeaders, saleOf(250))).toEqual({ status: 201 });
    expect((await held).error).toBe('client timeout');
    await eventually(() => s.heldSockets.size === 0);
    expect(s.requests().find((r) => r.rule === 'hang-big-sale')).toMatchObject({ status: 0, errorName: 'noResponse' });
  });

  it('no-response.yaml: close() releases a held socket instead of waiting for it', async () => {
    const s = await start('no-response.yaml');
    const held = send(s, 'POST', SALE_PATH, saleHeaders, saleOf(99999));
    await eventually(() => s.heldSockets.size === 1);
    await s.close();
    expect((await held).error).toMatch(/ECONNRESET|socket hang up/i);
  });
});

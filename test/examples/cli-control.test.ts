/**
 * Example: token-sim as a separate process (the CLI, as CI pipelines and other languages use it), driven
 * through the control API: the virtual clock crosses a token's half-life and then its expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/token-sim.js', import.meta.url));
const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const headers = { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE };

describe('a payment client against `token-sim` run as a process', () => {
  let child: ChildProcess;
  let url: string;
  const admin = { Authorization: 'Bearer ci-admin', 'Content-Type': 'application/json' };

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, '--port', '0', '--seed', 'ci', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'silent', '--admin-token', 'ci-admin']);
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    url = /listening on (\S+)/.exec(line.toString())![1]!;
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  const advance = async (by: string) =>
    ((await (await fetch(`${url}/_sim/clock/advance`, { method: 'POST', headers: admin, body: JSON.stringify({ by }) })).json()) as { now: string }).now;

  it('extends a token used after its half-life, and loses it after expiry', async () => {
    const created = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        paymentInstrument: { type: 'card/front', cardHolderName: 'Grace Hopper', cardNumber: '5555555555554444', cardExpiryDate: { month: 1, year: 2036 } },
        merchant: { entity: 'default' },
      }),
    });
    expect(created.status).toBe(201);
    const href = created.headers.get('location')!;

    expect(await advance('P4D')).toBe('2030-01-05T00:00:00Z');
    const used = (await (await fetch(href, { headers })).json()) as { tokenExpiryDateTime: string };
    expect(used.tokenExpiryDateTime).toBe('2030-01-15T00:00:00Z');

    await advance('P10D');
    expect((await fetch(href, { headers })).status).toBe(404);

    const journal = (await (await fetch(`${url}/_sim/requests`, { headers: admin })).json()) as { requests: { operation: string; status: number }[] };
    expect(journal.requests.map((r) => `${r.operation} ${r.status}`)).toEqual(['createToken 201', 'getToken 200', 'getToken 404']);
    expect((await fetch(`${url}/_sim/requests`)).status).toBe(401);
  });
});

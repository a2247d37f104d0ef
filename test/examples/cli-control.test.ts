/**
 * Example: token-sim started through its command line (the arguments CI pipelines and other languages
 * pass to `token-sim`), here in-process: main(argv, io) with an io that captures its output and its stop
 * handler. Driven through the control API: the virtual clock crosses a token's half-life and then its expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const headers = { Authorization: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE };

describe('a payment client against the `token-sim` command line, run in-process', () => {
  let url: string;
  let stop: ((signal: string) => void) | undefined;
  let exited: Promise<number>;
  const admin = { Authorization: 'Bearer ci-admin', 'Content-Type': 'application/json' };

  beforeAll(async () => {
    const out: string[] = [];
    const err: string[] = [];
    let onExit!: (code: number) => void;
    exited = new Promise((resolve) => (onExit = resolve));
    const io: CliIo = {
      out: (line) => void out.push(line),
      err: (line) => void err.push(line),
      exit: (code) => onExit(code),
      onStopSignal: (handler) => (stop = handler),
      isTTY: false,
    };
    await main(['--port', '0', '--seed', 'ci', '--now', '2030-01-01T00:00:00Z', '--frozen', '--log', 'silent', '--admin-token', 'ci-admin'], io);
    const listening = /listening on (\S+)/.exec(out[0] ?? '');
    if (!listening) throw new Error(`token-sim did not start: ${err.join('\n')}`);
    url = listening[1]!;
  });
  afterAll(async () => {
    // What SIGTERM does to the process: stop accepting, finish requests in flight, exit 0.
    if (!stop) return;
    stop('SIGTERM');
    expect(await exited).toBe(0);
  });

  const advance = async (by: string) =>
    ((await (await fetch(`${url}/_sim/clock/advance`, { method: 'POST', headers: admin, body: JSON.stringify({ by }) })).json()) as { now: string }).now;

  it('extends a token used after its half-life, loses it after expiry, and journals the calls behind the admin token', async () => {
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

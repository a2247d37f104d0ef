/**
 * The two curl lines against the real CLI (contract 4.1, decision 0042): an empty form POST from a
 * foreign Origin, and a rebound Host, are refused and change nothing; the allowed forms keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listening, run, TOKEN_TYPE, type Run } from '../support/cli.js';

const exec = promisify(execFile);
/** curl's status code and body (`-w` appends the status after a newline). */
async function curl(args: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await exec('curl', ['-s', '-w', '\n%{http_code}', ...args]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

describe('the curl lines of an attacker on the laptop', () => {
  let cli: Run;
  let sim: string;
  beforeAll(async () => {
    cli = run(['--port', '0', '--log', 'silent', '--seed', 'curl', '--allowed-host', 'sandbox.example']);
    sim = await listening(cli);
    const created = await curl(['-u', 'merchant:secret', '-H', `Content-Type: ${TOKEN_TYPE}`, '-H', `Accept: ${TOKEN_TYPE}`, '--data', JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName: 'Sherlock Holmes', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
      merchant: { entity: 'default' },
    }), `${sim}/tokens`]);
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  const tokenCount = async (): Promise<number> => (JSON.parse((await curl([`${sim}/_sim/tokens`])).body) as { tokens: unknown[] }).tokens.length;

  it("refuses curl -X POST $SIM/_sim/reset -H 'Origin: http://evil.example' --data '' with 403 and deletes nothing", async () => {
    const res = await curl(['-X', 'POST', `${sim}/_sim/reset`, '-H', 'Origin: http://evil.example', '--data', '']);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Origin' });
    expect(await tokenCount()).toBe(1);
  });

  it("refuses curl -X POST $SIM/_sim/reset --data '' (a form type, no Origin) with 415", async () => {
    const res = await curl(['-X', 'POST', `${sim}/_sim/reset`, '--data', '']);
    expect(res.status).toBe(415);
    expect(JSON.parse(res.body)).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Content-Type' });
    expect(await tokenCount()).toBe(1);
  });

  it('refuses curl -H "Host: evil.example:$PORT" $SIM/_sim/state with 403, and answers an --allowed-host name', async () => {
    const port = new URL(sim).port;
    const res = await curl(['-H', `Host: evil.example:${port}`, `${sim}/_sim/state`]);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ errorName: 'headerHasInvalidValue', headerName: 'Host' });
    expect((await curl(['-H', `Host: sandbox.example:${port}`, `${sim}/_sim/clock`])).status).toBe(200);
  });

  it('keeps curl -X POST $SIM/_sim/reset (no body, no type) working', async () => {
    expect((await curl(['-X', 'POST', `${sim}/_sim/reset`])).status).toBe(204);
    expect(await tokenCount()).toBe(0);
  });
});

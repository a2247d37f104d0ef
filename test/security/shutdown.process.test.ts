/** A real process stopped by SIGTERM while requests are in flight (signals need a real process). */
import { describe, expect, it } from '@jest/globals';
import { listening, run, TOKEN_TYPE } from '../support/cli.js';

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

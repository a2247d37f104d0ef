/**
 * Refs bind the whole tenant identity (contract 3.6; issue 13, defect 2): two configured users never share a
 * ref space. Under `--seed tenants` the usernames `svc-23175` and `svc-50258` once shared the keyed 32-bit
 * tenant hash of a compact ref, and the first of them got 404 on its own hrefs.
 */
import { describe, expect, it } from '@jest/globals';
import { client, createToken, pathOf, testSimulator } from '../support/sim.js';

describe('refs of two users whose short tenant hashes once collided', () => {
  const sim = (): ReturnType<typeof testSimulator> =>
    testSimulator({ seed: 'tenants', users: ['svc-23175:pw-a', 'svc-50258:pw-b'] });

  it('let each user read its own tokens, and answer 404 to the other', async () => {
    const s = sim();
    const a = client(s, 'svc-23175', 'pw-a');
    const b = client(s, 'svc-50258', 'pw-b');
    const ofA = await createToken(a);
    const ofB = await createToken(b);

    for (const [api, links] of [
      [a, ofA],
      [b, ofB],
    ] as const) {
      const own = await api.get(links['tokens:token']!);
      expect(own.status).toBe(200);
      expect(pathOf((own.body as { tokenPaymentInstrument: { href: string } }).tokenPaymentInstrument.href)).toBe(pathOf(links['tokens:token']!));
    }
    for (const [api, links] of [
      [b, ofA],
      [a, ofB],
    ] as const) {
      const foreign = await api.get(links['tokens:token']!);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ errorName: 'resourceNotFound', message: expect.any(String) });
    }
  });

  it('keep working for each user after the other has used its refs', async () => {
    const s = sim();
    const a = client(s, 'svc-23175', 'pw-a');
    const b = client(s, 'svc-50258', 'pw-b');
    const ofB = await createToken(b);
    const ofA = await createToken(a);
    expect((await b.get(ofB['tokens:token']!)).status).toBe(200);
    expect((await a.get(ofA['tokens:token']!)).status).toBe(200);
    expect((await a.put(ofA['tokens:description']!, 'mine')).status).toBe(204);
    expect((await b.put(ofA['tokens:description']!, 'not mine')).status).toBe(404);
  });

  it('keep answering each user after its state is imported into a simulator restarted with the same seed', async () => {
    const before = sim();
    const ofA = await createToken(client(before, 'svc-23175', 'pw-a'));
    const ofB = await createToken(client(before, 'svc-50258', 'pw-b'));
    const after = sim();
    after.importState(JSON.parse(JSON.stringify(before.exportState())));
    const a = client(after, 'svc-23175', 'pw-a');
    const b = client(after, 'svc-50258', 'pw-b');
    expect((await a.get(ofA['tokens:token']!)).status).toBe(200);
    expect((await b.get(ofB['tokens:token']!)).status).toBe(200);
    expect((await a.get(ofB['tokens:token']!)).status).toBe(404);
  });
});

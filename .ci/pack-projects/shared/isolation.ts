// One test file of ten that run in parallel workers against the one simulator the runner's globalSetup started
// (TOKEN_SIM_URL). File k owns the tenant file-k: it scripts an outage for it, moves its clock and reads its
// journal, while the nine others do the same to theirs. `./runner` is '@jest/globals' or 'vitest'.
// Copied into each fresh project by .ci/pack-check; it knows token-sim only as the installed package.
import { connectSimulator, type JournalEntry } from 'token-sim';
import { describe, expect, it } from './runner';

const TOKEN_TYPE = 'application/vnd.service.tokens-v1.hal+json';
const START = '2030-01-01T00:00:00Z';
const FILES = 10;

const url = process.env.TOKEN_SIM_URL ?? '';
const authorization = (tenant: string): string => `Basic ${Buffer.from(`${tenant}:secret`).toString('base64')}`;

function create(tenant: string, cardHolderName: string, namespace: string): Promise<Response> {
  return fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { Authorization: authorization(tenant), Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE },
    body: JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName, cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } },
      merchant: { entity: 'default' },
      namespace,
    }),
  });
}

const read = (tenant: string, href: string): Promise<Response> =>
  fetch(href, { headers: { Authorization: authorization(tenant), Accept: TOKEN_TYPE } });

async function hrefOf(res: Response): Promise<string> {
  expect(res.status).toBe(201);
  return ((await res.json()) as { tokenPaymentInstrument: { href: string } }).tokenPaymentInstrument.href;
}

export function isolationSuite(k: number): void {
  const sim = connectSimulator(url);
  const name = `file-${k}`;
  const other = `file-${(k % FILES) + 1}`;
  const me = sim.tenant(name);
  const holder = `File ${k}`;

  describe(`test file ${k}, tenant ${name}`, () => {
    // The title names the worker (Jest's JEST_WORKER_ID, Vitest's VITEST_POOL_ID): .ci/pack-projects/workers.mjs
    // reads them from the report, to check that the files ran in more than one worker.
    const worker = process.env.JEST_WORKER_ID ?? process.env.VITEST_POOL_ID ?? 'none';
    it(`finds the simulator the global set-up started (worker ${worker})`, () => {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });

    it('scripts an outage for its own tenant: its create gets 503, the same create by another file’s tenant does not', async () => {
      await me.loadScenarios({
        name: 'outage',
        rules: [{ when: { operation: 'createToken', cardHolderName: holder }, then: { error: { status: 503, errorName: 'serviceUnavailable', message: 'down' } } }],
      });
      expect((await me.scenarios()).map((s) => s.name)).toEqual(['outage']);
      const mine = await create(name, holder, 'outage');
      expect(mine.status).toBe(503);
      expect(await mine.json()).toEqual({ errorName: 'serviceUnavailable', message: 'down' });
      // The very body this file's rule refuses, sent at the same time as another file's tenant: not refused.
      expect((await create(other, holder, `visitor-${k}`)).status).toBe(201);
      await me.loadScenarios();
      expect(await me.scenarios()).toEqual([]);
    });

    it('advances its own clock P8D: its own token expires, a token of another tenant stays', async () => {
      const own = await hrefOf(await create(name, holder, 'clock'));
      const bystander = await hrefOf(await create('bystander', holder, `from-${k}`));
      // Nine other files advance their own clocks meanwhile: this tenant's token is still live.
      expect((await read(name, own)).status).toBe(200);
      expect(await me.clock.now()).toBe(START);
      expect(await me.clock.advance('P8D')).toBe('2030-01-09T00:00:00Z');
      expect((await read(name, own)).status).toBe(404);
      expect((await read('bystander', bystander)).status).toBe(200);
      expect(await sim.clock.now()).toBe(START);
    });

    it('reads its own journal: only its own tenant’s requests', async () => {
      const creates: JournalEntry[] = await me.requests({ operation: 'createToken' });
      expect(creates.every((e) => e.tenant === name)).toBe(true);
      const namespaceOf = (e: JournalEntry): string => String((e.requestBody as { namespace?: unknown } | undefined)?.namespace);
      // The previous file's visit to this tenant (the create above, with its own namespace) may or may not have come yet.
      const own = creates.filter((e) => !namespaceOf(e).startsWith('visitor-'));
      expect(own.map((e) => [namespaceOf(e), e.status])).toEqual([
        ['outage', 503],
        ['clock', 201],
      ]);
      expect(creates.length - own.length).toBeLessThanOrEqual(1);
      expect((await me.requests({ operation: 'getToken' })).map((e) => e.status)).toEqual([200, 404]);
      // Its own token expired; only the previous file's visitor token (if it came) is live.
      expect((await me.tokens()).filter((t) => !String(t.namespace).startsWith('visitor-'))).toEqual([]);
    });
  });
}

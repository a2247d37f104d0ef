/**
 * --state-file (issue 13, defects 10 and 11): the state survives a restart without --seed (every href issued
 * before it still answers), a kill -9 during a save leaves the previous file loadable, the generated key file
 * is private, and a file sealed with another key is refused with exit 2. Real signals need real processes.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { listening, run, TOKEN_TYPE, type Run } from '../support/cli.js';

const AUTH = { merchant: `Basic ${Buffer.from('merchant:secret').toString('base64')}`, alice: `Basic ${Buffer.from('alice:pw-alice').toString('base64')}` };

/** A Luhn-valid 16-digit Visa number from a serial. */
function cardNumber(serial: number): string {
  const body = `4111${String(serial).padStart(11, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

async function createToken(url: string, user: keyof typeof AUTH, serial: number): Promise<{ status: number; href: string; tokenId: string }> {
  const res = await fetch(`${url}/tokens`, {
    method: 'POST',
    headers: { Authorization: AUTH[user], Accept: TOKEN_TYPE, 'Content-Type': TOKEN_TYPE },
    body: JSON.stringify({
      paymentInstrument: { type: 'card/front', cardHolderName: `Holder ${serial}`, cardNumber: cardNumber(serial), cardExpiryDate: { month: 1, year: 2031 } },
      merchant: { entity: 'default' },
    }),
  });
  const body = (await res.json()) as { tokenId: string; _links: { 'tokens:token': { href: string } } };
  return { status: res.status, href: body._links['tokens:token'].href, tokenId: body.tokenId };
}

const stateDir = (): string => mkdtempSync(join(tmpdir(), 'token-sim-state-'));
const killed = (r: Run): boolean => r.child.exitCode !== null || r.child.signalCode !== null;

async function stop(r: Run): Promise<number | null> {
  r.child.kill('SIGTERM');
  return r.exited;
}

describe('token-sim --state-file', () => {
  it('restores after SIGTERM without --seed: every href issued before the restart answers 200, and the key file is mode 0600', async () => {
    const file = join(stateDir(), 'state.json');
    const args = ['--port', '0', '--log', 'silent', '--user', 'alice:pw-alice', '--state-file', file];
    const first = run(args);
    const issued: { user: keyof typeof AUTH; href: string; tokenId: string }[] = [];
    try {
      const url = await listening(first);
      for (let i = 0; i < 20; i++) {
        const user = i % 2 === 0 ? 'merchant' : 'alice';
        const created = await createToken(url, user, i);
        expect(created.status).toBe(201);
        issued.push({ user, href: new URL(created.href).pathname, tokenId: created.tokenId });
      }
      expect(await stop(first)).toBe(0);
    } finally {
      if (!killed(first)) first.child.kill('SIGKILL');
    }
    expect(statSync(`${file}.key`).mode & 0o777).toBe(0o600);
    expect(statSync(file).mode & 0o077).toBe(0);

    const second = run(args);
    try {
      const url = await listening(second);
      for (const { user, href, tokenId } of issued) {
        const res = await fetch(`${url}${href}`, { headers: { Authorization: AUTH[user], Accept: TOKEN_TYPE } });
        expect([href, res.status]).toEqual([href, 200]);
        expect(((await res.json()) as { tokenId: string }).tokenId).toBe(tokenId);
      }
      // A new token after the restart does not reuse an id issued before it.
      const fresh = await createToken(url, 'merchant', 1000);
      expect(fresh.status).toBe(201);
      expect(issued.map((t) => t.tokenId)).not.toContain(fresh.tokenId);
      expect(await stop(second)).toBe(0);
    } finally {
      if (!killed(second)) second.child.kill('SIGKILL');
    }
    expect(second.stderr()).toBe('');
  }, 30_000);

  it('kill -9 at random moments while saves run leaves the previous file whole and loadable each time', async () => {
    const dir = stateDir();
    const file = join(dir, 'state.json');
    const args = ['--port', '0', '--log', 'silent', '--now', '2030-01-01T00:00:00Z', '--frozen', '--state-file', file, '--state-interval', 'PT0.02S'];
    const tokens = 3000;
    const setup = run(args);
    try {
      const url = await listening(setup);
      for (let i = 0; i < tokens; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, (_, j) => createToken(url, 'merchant', i + j)));
        expect(batch.every((c) => c.status === 201)).toBe(true);
      }
      expect(await stop(setup)).toBe(0);
    } finally {
      if (!killed(setup)) setup.child.kill('SIGKILL');
    }
    let midSave = 0;
    for (let round = 0; round < 10; round++) {
      const r = run(args);
      try {
        const url = await listening(r);
        // Every answered request marks the state changed: with a 20 ms interval a save is nearly always under way.
        let going = true;
        const traffic = (async () => {
          while (going) await fetch(`${url}/_sim/clock`).then((res) => res.arrayBuffer(), () => undefined);
        })();
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
        r.child.kill('SIGKILL');
        await r.exited;
        going = false;
        await traffic;
      } finally {
        if (!killed(r)) r.child.kill('SIGKILL');
      }
      if (readdirSync(dir).some((name) => name.startsWith('state.json.tmp-'))) midSave++;
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { format: string; tokens: unknown[] };
      expect([saved.format, saved.tokens.length]).toEqual(['token-sim-state', tokens]);
    }
    // At least one kill caught a save half-written (its temporary file is left behind), and the file stayed whole.
    expect(midSave).toBeGreaterThan(0);
    const last = run(args);
    try {
      const url = await listening(last);
      const page = (await (await fetch(`${url}/_sim/tokens?limit=1`)).json()) as { tokens: unknown[] };
      expect(page.tokens).toHaveLength(1);
      expect(await stop(last)).toBe(0);
    } finally {
      if (!killed(last)) last.child.kill('SIGKILL');
    }
    // The temporaries of killed processes are removed at the next start.
    expect(readdirSync(dir).filter((name) => name.startsWith('state.json.tmp-'))).toEqual([]);
  }, 120_000);

  it('refuses a state file sealed with another --state-key: one line on stderr, exit 2; the same key restores it', async () => {
    const file = join(stateDir(), 'state.json');
    const args = ['--port', '0', '--log', 'silent', '--state-file', file];
    const first = run([...args, '--state-key', 'the-first-key-of-20']);
    try {
      const url = await listening(first);
      expect((await createToken(url, 'merchant', 7)).status).toBe(201);
      expect(await stop(first)).toBe(0);
    } finally {
      if (!killed(first)) first.child.kill('SIGKILL');
    }
    // A given key is not written anywhere.
    expect(existsSync(`${file}.key`)).toBe(false);

    const wrong = run([...args, '--state-key', 'another-key-of-20ch']);
    expect(await wrong.exited).toBe(2);
    const lines = wrong.stderr().trim().split('\n').filter((line) => !line.includes('warning'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^token-sim: --state-file .*state\.json cannot be restored: .*\$\.tokens\[0\]\.sealedCardNumber.*state key/);
    expect(wrong.stdout()).toBe('');

    const right = run([...args, '--state-key', 'the-first-key-of-20']);
    try {
      const url = await listening(right);
      const page = (await (await fetch(`${url}/_sim/tokens`)).json()) as { tokens: unknown[] };
      expect(page.tokens).toHaveLength(1);
      expect(await stop(right)).toBe(0);
    } finally {
      if (!killed(right)) right.child.kill('SIGKILL');
    }
  }, 30_000);

  it('refuses a state file that is not JSON with one line and exit 2, and starts empty when the file is missing', async () => {
    const dir = stateDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, 'not json\n{');
    const refused = run(['--port', '0', '--log', 'silent', '--state-file', bad]);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^token-sim: --state-file .*bad\.json is not valid JSON/)]);

    const fresh = run(['--port', '0', '--log', 'silent', '--state-file', join(dir, 'new.json')]);
    try {
      const url = await listening(fresh);
      const page = (await (await fetch(`${url}/_sim/tokens`)).json()) as { tokens: unknown[] };
      expect(page.tokens).toEqual([]);
      expect(await stop(fresh)).toBe(0);
    } finally {
      if (!killed(fresh)) fresh.child.kill('SIGKILL');
    }
  }, 30_000);
});

import { describe, expect, it } from '@jest/globals';
import { createJournal, type JournalRecord } from '../../src/control/journal.js';
import { maskCardData } from '../../src/wire/mask.js';

const entry = (tenant: string | null, path: string): JournalRecord => ({
  tenant,
  operation: 'getToken',
  method: 'GET',
  path,
  status: 200,
  correlationId: 'c',
  virtualMs: Date.parse('2030-01-01T00:00:00Z'),
  realMs: Date.parse('2026-01-01T00:00:00Z'),
  durationMs: 1,
  rule: null,
});

const bounds = (perTenant: number, total = 10_000, bodyChars = 1_000_000) => ({ perTenant, total, bodyChars });

describe('the journal', () => {
  it('keeps at most N entries per tenant, newest last', () => {
    const journal = createJournal(bounds(3));
    for (let i = 1; i <= 10; i++) journal.record(entry('a', `/a/${i}`));
    journal.record(entry('b', '/b/1'));
    expect(journal.list('a').map((e) => e.path)).toEqual(['/a/8', '/a/9', '/a/10']);
    expect(journal.list('b').map((e) => e.path)).toEqual(['/b/1']);
  });

  it('lists every tenant in arrival order, unauthenticated ones included', () => {
    const journal = createJournal(bounds(10));
    journal.record(entry('a', '/1'));
    journal.record(entry(null, '/2'));
    journal.record(entry('b', '/3'));
    journal.record(entry('a', '/4'));
    expect(journal.list().map((e) => [e.tenant, e.path])).toEqual([['a', '/1'], [null, '/2'], ['b', '/3'], ['a', '/4']]);
  });

  it('clears one tenant or all', () => {
    const journal = createJournal(bounds(10));
    journal.record(entry('a', '/1'));
    journal.record(entry('b', '/2'));
    journal.clear('a');
    expect(journal.list().map((e) => e.tenant)).toEqual(['b']);
    journal.clear();
    expect(journal.list()).toEqual([]);
  });

  it('formats times, masks bodies when listed, and does not keep large bodies', () => {
    const journal = createJournal(bounds(10));
    journal.record({ ...entry('a', '/1'), body: Buffer.from(JSON.stringify({ cardNumber: '4444333322221111', cvc: '123' })) });
    journal.record({ ...entry('a', '/2'), body: Buffer.alloc(20_000, 32) });
    const [first, second] = journal.list('a');
    expect(first).toMatchObject({ virtualTime: '2030-01-01T00:00:00Z', realTime: '2026-01-01T00:00:00.000Z', requestBody: { cardNumber: '4444********1111', cvc: '***' } });
    expect(second?.requestBody).toBe('[a body of 20000 bytes, not kept]');
  });

  it('keeps nothing with size 0', () => {
    const journal = createJournal(bounds(0));
    journal.record(entry('a', '/1'));
    expect(journal.list()).toEqual([]);
  });
});

describe('masking card data', () => {
  it('masks card numbers by key and by shape, stars CVCs, and keeps the rest', () => {
    const masked = maskCardData({
      paymentInstrument: { cardNumber: '4444333322221111', cvc: '123', cardHolderName: 'A' },
      note: 'pay with 5555555555554444',
      list: ['4111111111111111', '12345'],
      amount: 250,
    });
    expect(masked).toEqual({
      paymentInstrument: { cardNumber: '4444********1111', cvc: '***', cardHolderName: 'A' },
      note: 'pay with 5555********4444',
      list: ['4111********1111', '12345'],
      amount: 250,
    });
  });

  it('keeps a __proto__ key a plain key', () => {
    const masked = maskCardData(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

});

describe('the journal bounds', () => {
  it('trims on write: it never holds more than N entries of a tenant', () => {
    const journal = createJournal(bounds(3));
    for (let i = 1; i <= 10; i++) {
      journal.record(entry('a', `/a/${i}`));
      expect(journal.size().entries).toBeLessThanOrEqual(3);
    }
    expect(journal.size().entries).toBe(3);
  });

  it('keeps at most the total bound across tenants, dropping the oldest first whoever they belong to', () => {
    const journal = createJournal(bounds(1000, 5));
    for (let i = 1; i <= 200; i++) journal.record(entry(`t${i}`, `/${i}`));
    expect(journal.size().entries).toBe(5);
    expect(journal.list().map((e) => e.path)).toEqual(['/196', '/197', '/198', '/199', '/200']);
    expect(journal.list('t195')).toEqual([]);
    expect(journal.list('t200').map((e) => e.path)).toEqual(['/200']);
  });

  it('stays within both bounds when one tenant trims itself and the total trims the rest', () => {
    const journal = createJournal(bounds(2, 4));
    for (const [tenant, path] of [['a', '/1'], ['a', '/2'], ['a', '/3'], ['b', '/4'], ['b', '/5'], ['c', '/6']] as const) journal.record(entry(tenant, path));
    expect(journal.list().map((e) => e.path)).toEqual(['/3', '/4', '/5', '/6']);
    expect(journal.list('a').map((e) => e.path)).toEqual(['/3']);
  });

  it('drops the oldest entries once the kept bodies pass their character bound', () => {
    const journal = createJournal(bounds(1000, 1000, 250));
    for (let i = 1; i <= 5; i++) journal.record({ ...entry('a', `/${i}`), body: `{"n":"${'x'.repeat(92)}"}` });
    expect(journal.size()).toEqual({ entries: 2, bodyChars: 200 });
    expect(journal.list().map((e) => e.path)).toEqual(['/4', '/5']);
  });

  it('counts what it holds down when a tenant is cleared', () => {
    const journal = createJournal(bounds(10));
    journal.record({ ...entry('a', '/1'), body: '{"a":1}' });
    journal.record(entry('b', '/2'));
    journal.clear('a');
    expect(journal.size()).toEqual({ entries: 1, bodyChars: 0 });
    expect(journal.list().map((e) => e.path)).toEqual(['/2']);
  });

  it('stays bounded over 100,000 entries of 1,000 tenants', () => {
    const journal = createJournal(bounds(10, 500));
    for (let i = 0; i < 100_000; i++) journal.record(entry(`t${i % 1000}`, `/${i}`));
    expect(journal.size().entries).toBe(500);
    expect(journal.list().at(-1)?.path).toBe('/99999');
    expect(journal.list()).toHaveLength(500);
  });
});


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

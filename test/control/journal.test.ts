import { describe, expect, it } from '@jest/globals';
import { cleanJournalFilter, createJournal, journalFilterProblems, type JournalFilter, type JournalRecord } from '../../src/control/journal.js';
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


describe('journal queries', () => {
  const op = (operation: JournalRecord['operation'], status: number, rule: string | null = null, method = 'GET'): JournalRecord => ({ ...entry('a', `/${operation}`), operation, status, rule, method });

  function filled() {
    const journal = createJournal(bounds(100));
    journal.record(op('createToken', 201, null, 'POST')); // seq 1
    journal.record(op('getToken', 200)); // 2
    journal.record(op('getToken', 404)); // 3
    journal.record(op('sale', 500, 'outage', 'POST')); // 4
    journal.record({ ...op('getToken', 200), tenant: 'b' }); // 5
    journal.record(op('sale', 201, null, 'POST')); // 6
    return journal;
  }
  const seqs = (journal: ReturnType<typeof createJournal>, filter: JournalFilter, tenant?: string) => {
    const { selected, count } = journal.select(tenant, filter);
    return { seqs: selected.map((s) => s.seq), count };
  };

  it.each<[string, JournalFilter, number[]]>([
    ['operation', { operation: 'getToken' }, [2, 3, 5]],
    ['status', { status: 201 }, [1, 6]],
    ['method, in any case', { method: 'post' }, [1, 4, 6]],
    ['rule', { rule: 'outage' }, [4]],
    ['since (exclusive)', { since: 4 }, [5, 6]],
    ['all criteria at once', { operation: 'sale', method: 'POST', status: 201, since: 1 }, [6]],
    ['nothing', {}, [1, 2, 3, 4, 5, 6]],
  ])('filters by %s, oldest first, and counts what passes', (_name, filter, expected) => {
    expect(seqs(filled(), filter)).toEqual({ seqs: expected, count: expected.length });
  });

  it('returns the oldest `limit` entries that pass and counts them all', () => {
    const journal = filled();
    expect(seqs(journal, { operation: 'getToken', limit: 2 })).toEqual({ seqs: [2, 3], count: 3 });
    expect(seqs(journal, { limit: 0 })).toEqual({ seqs: [], count: 6 });
  });

  it('pages forward with since = the last seq seen', () => {
    const journal = filled();
    const pages: number[][] = [];
    let since = 0;
    for (;;) {
      const page = seqs(journal, { since, limit: 4 }).seqs;
      if (page.length === 0) break;
      pages.push(page);
      since = page.at(-1)!;
    }
    expect(pages).toEqual([[1, 2, 3, 4], [5, 6]]);
  });

  it('filters one tenant’s entries only when a tenant is named', () => {
    expect(seqs(filled(), { operation: 'getToken' }, 'b')).toEqual({ seqs: [5], count: 1 });
    expect(seqs(filled(), {}, 'nobody')).toEqual({ seqs: [], count: 0 });
  });

  it('never selects entries a bound dropped', () => {
    const journal = createJournal(bounds(2));
    for (let i = 0; i < 5; i++) journal.record(op('getToken', 200));
    expect(seqs(journal, {})).toEqual({ seqs: [4, 5], count: 2 });
  });
});

describe('checking a journal filter', () => {
  it('returns a valid filter with its method in capitals', () => {
    expect(cleanJournalFilter({ operation: 'sale', status: 0, method: 'delete', rule: 'r', since: 0, limit: 10 })).toEqual({ operation: 'sale', status: 0, method: 'DELETE', rule: 'r', since: 0, limit: 10 });
    expect(cleanJournalFilter({})).toEqual({});
  });

  it('names every problem at once, each at its key', () => {
    const problems = journalFilterProblems({ operation: 'capture', status: 600, method: 'GE T', rule: '', since: -1, limit: 1.5, opertion: 'sale' });
    expect(problems.map((p) => [p.errorName, p.path])).toEqual([
      ['fieldHasInvalidValue', ['operation']],
      ['integerIsTooLarge', ['status']],
      ['fieldHasInvalidValue', ['method']],
      ['fieldIsEmpty', ['rule']],
      ['integerIsTooSmall', ['since']],
      ['fieldMustBeInteger', ['limit']],
      ['fieldIsNotAllowed', ['opertion']],
    ]);
    expect(problems[0]?.message).toBe('operation must be one of createToken, getToken, updateToken, deleteToken, queryTokens, sale, refund, partialRefund, reversal, paymentEvents, paymentQuery, unknown');
  });

  it.each([
    [{ status: '200' }, 'fieldMustBeInteger'],
    [{ since: Number.MAX_SAFE_INTEGER + 2 }, 'integerIsTooLarge'],
    [{ operation: 5 }, 'fieldMustBeString'],
    [{ rule: 'x'.repeat(257) }, 'fieldHasInvalidValue'],
  ])('refuses %p', (filter, errorName) => {
    expect(journalFilterProblems(filter).map((p) => p.errorName)).toEqual([errorName]);
  });

  it('says to quote an operation given as a number, and names the operation a misspelt one meant', () => {
    expect(journalFilterProblems({ operation: 5 })).toStrictEqual([{ errorName: 'fieldMustBeString', message: 'operation must be a string, not the number 5: quote it', path: ['operation'] }]);
    expect(journalFilterProblems({ operation: 'sael' })).toStrictEqual([
      {
        errorName: 'fieldHasInvalidValue',
        message: 'operation must be one of createToken, getToken, updateToken, deleteToken, queryTokens, sale, refund, partialRefund, reversal, paymentEvents, paymentQuery, unknown; did you mean sale?',
        path: ['operation'],
      },
    ]);
  });
});

describe('what an entry shows', () => {
  const full = (over: Partial<JournalRecord>): JournalRecord => ({ ...entry('a', '/tokens'), method: 'POST', operation: 'createToken', status: 201, ...over });
  const listed = (record: JournalRecord) => {
    const journal = createJournal(bounds(10));
    journal.record(record);
    return journal.list()[0]!;
  };

  it('keeps the response body, masked like the request body', () => {
    const e = listed(full({ body: '{"cardNumber": 4444333322221111, "cvc": 123}', responseBody: '{"paymentInstrument":{"cardNumber":"4444********1111"},"description":"card 4444 3333 2222 1111"}' }));
    expect(e.requestBody).toEqual({ cardNumber: '4444********1111', cvc: '***' });
    expect(e.responseBody).toEqual({ paymentInstrument: { cardNumber: '4444********1111' }, description: 'card 4444 **** **** 1111' });
  });

  it('shows a body that is not JSON as masked text', () => {
    const e = listed(full({ body: '{"cardNumber": "4444333322221112", "cvc": 987', responseBody: 'card 4444-3333-2222-1111' }));
    expect(e.requestBody).toBeUndefined();
    expect(e.requestText).toBe('{"cardNumber": "4444********1112", "cvc": ***');
    expect(e.responseText).toBe('card 4444-****-****-1111');
  });

  it('keeps no response body over 16 KiB, only its size', () => {
    const journal = createJournal(bounds(10));
    journal.record(full({ responseBody: `"${'x'.repeat(20_000)}"` }));
    expect(journal.list()[0]?.responseBody).toBe('[a body of 20002 bytes, not kept]');
    expect(journal.size().bodyChars).toBe(0);
  });

  it('counts response bodies in the bound on kept characters', () => {
    const journal = createJournal(bounds(1000, 1000, 250));
    for (let i = 1; i <= 5; i++) journal.record({ ...full({ path: `/${i}` }), body: `"${'x'.repeat(48)}"`, responseBody: `"${'y'.repeat(48)}"` });
    expect(journal.size()).toEqual({ entries: 2, bodyChars: 200 });
  });

  it('shows the kept request headers and the answer’s headers, masked, and the query, masked', () => {
    const e = listed(
      full({
        query: 'cvc=123&q=4444+3333+2222+1111&tokenId=4444333322221111',
        host: 'sim.test',
        accept: 'application/json',
        contentLength: '12',
        clientCorrelationId: 'id 4444 3333 2222 1111',
        correlationId: 'c',
        sentHeaders: ['X-Content-Type-Options', 'nosniff'],
        responseHeaders: { Location: 'http://4444333322221111/tokens/4444333322221111', Note: 'card 4444-3333-2222-1111' },
        responseType: 'application/vnd.x+json',
        responseBody: '{"a":"é"}',
      }),
    );
    expect(e.query).toBe('cvc=***&q=4444+****+****+1111&tokenId=4444333322221111');
    expect(e.requestHeaders).toStrictEqual({ Host: 'sim.test', Accept: 'application/json', 'Content-Length': '12', 'Correlation-Id': 'id 4444 **** **** 1111' });
    expect(e.responseHeaders).toStrictEqual({
      'Correlation-Id': 'c',
      'X-Content-Type-Options': 'nosniff',
      Location: 'http://4444********1111/tokens/4444333322221111',
      Note: 'card 4444-****-****-1111',
      'Content-Type': 'application/vnd.x+json',
      'Content-Length': '10',
    });
  });

  it('shows no answer headers for a request that was not answered', () => {
    expect(listed(full({ status: 0, errorName: 'noResponse' })).responseHeaders).toStrictEqual({});
  });

  it('masks card numbers written with separators in the path', () => {
    expect(listed(full({ path: '/nope/4444%203333%202222%201111' })).path).toBe('/nope/4444%20****%20****%201111');
  });
});

describe('the live journal hook (decision 0034)', () => {
  it('tells each subscriber of every entry as it is recorded, with its seq, until it unsubscribes', () => {
    const journal = createJournal(bounds(10));
    journal.record(entry('a', '/a/1'));
    const seen: [number, string][] = [];
    const other: string[] = [];
    const off = journal.subscribe((s) => seen.push([s.seq, s.record.path]));
    journal.subscribe((s) => other.push(s.record.path));
    journal.record(entry('a', '/a/2'));
    journal.record(entry(null, '/b/1'));
    off();
    journal.record(entry('a', '/a/3'));
    expect(seen).toEqual([
      [2, '/a/2'],
      [3, '/b/1'],
    ]);
    expect(other).toEqual(['/a/2', '/b/1', '/a/3']);
    // The seq a subscriber sees is the one listings show.
    expect(journal.select(undefined, { since: 1 }).selected.map((s) => s.seq)).toEqual([2, 3, 4]);
  });

  it('tells nobody of what a journal bounded to nothing does not keep', () => {
    const journal = createJournal(bounds(0));
    const seen: unknown[] = [];
    journal.subscribe((s) => seen.push(s));
    journal.record(entry('a', '/a/1'));
    expect(seen).toEqual([]);
  });
});

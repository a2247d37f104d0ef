/** One recorded answer against the simulator's (issue 27): what counts as a difference, and what does not. */
import { describe, expect, it } from '@jest/globals';
import { compareAnswers, type Answer } from '../../src/verify/compare.js';

const answer = (status: number, json: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): Answer => ({
  status,
  headers: new Map(Object.entries(headers)),
  json,
});

describe('comparing answers', () => {
  it('finds nothing when only values differ', () => {
    const a = answer(201, { tokenId: '9912', expiry: '2030-01-01T00:00:00Z', items: [{ a: 1 }, { a: 2 }], _links: { self: { href: 'http://x/1' } } });
    const b = answer(201, { tokenId: '9934', expiry: '2031-01-01T00:00:00Z', items: [{ a: 9 }], _links: { self: { href: 'http://y/2' } } });
    expect(compareAnswers(a, b, undefined)).toEqual([]);
  });

  it('reports a status and an errorName alone when the statuses differ', () => {
    expect(compareAnswers(answer(201, { tokenId: '1' }, {}), answer(415, { errorName: 'headerHasInvalidValue', message: 'm' }), undefined)).toEqual([
      { kind: 'status', at: '', recorded: '201', simulator: '415' },
      { kind: 'errorName', at: '', simulator: 'headerHasInvalidValue' },
    ]);
  });

  it('reports jsonPaths, headers, fields, types and links when the statuses agree', () => {
    const recorded = answer(
      400,
      { errorName: 'bodyDoesNotMatchSchema', validationErrors: [{ jsonPath: '$.a' }, { jsonPath: '$.b' }], gone: 1, n: 1, _links: { a: {}, b: {} } },
      { 'content-type': 'application/json', location: 'http://x/1' },
    );
    const simulator = answer(
      400,
      { errorName: 'bodyDoesNotMatchSchema', validationErrors: [{ jsonPath: '$.a' }, { jsonPath: '$.c' }], added: true, n: '1', _links: { a: {}, c: {} } },
      { 'content-type': 'application/problem+json' },
    );
    expect(compareAnswers(recorded, simulator, 'http://y/1')).toEqual([
      { kind: 'jsonPath', at: '$.b', recorded: 'reported' },
      { kind: 'jsonPath', at: '$.c', simulator: 'reported' },
      { kind: 'header', at: 'Content-Type', recorded: 'application/json', simulator: 'application/problem+json' },
      { kind: 'header', at: 'Location', recorded: 'http://y/1' },
      { kind: 'field missing', at: '$.gone', recorded: 'number' },
      { kind: 'field extra', at: '$.added', simulator: 'boolean' },
      { kind: 'type', at: '$.n', recorded: 'number', simulator: 'string' },
      { kind: 'link', at: '$._links.b', recorded: 'present' },
      { kind: 'link', at: '$._links.c', simulator: 'present' },
    ]);
  });
});

/**
 * Large wrong documents cost in proportion to their size (contract 4.1): parseBounded examines long lists
 * item by item and stops once more than 100 problems are found; below that, it answers exactly as parseBody.
 */
import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { parseBody, parseBounded } from '../../src/wire/validation.js';
import { counted, thrown } from '../support/wire.js';

describe('parseBounded', () => {
  it('stops examining a long list once more than 100 problems are found, and says more were omitted', () => {
    const { schema, calls } = counted();
    const err = thrown(() => parseBounded(z.array(schema), Array.from({ length: 10_000 }, () => 'x'), 'items'));
    expect(calls.n).toBe(101);
    expect(err.problems).toHaveLength(100);
    expect(err.omitted).toBe(true);
    expect(err.problems[0]).toMatchObject({ path: [0] });
    expect(err.problems[99]).toMatchObject({ path: [99] });
  });

  it('finds long lists under objects and inside the items of short lists', () => {
    const { schema, calls } = counted();
    const doc = z.array(z.strictObject({ name: z.string(), rules: z.array(schema) }));
    const err = thrown(() => parseBounded(doc, [{ name: 'a', rules: Array.from({ length: 5_000 }, () => 'x') }], 'scenarios'));
    expect(calls.n).toBe(101);
    expect(err.problems[0]).toMatchObject({ errorName: 'fieldHasInvalidValue', path: [0, 'rules', 0] });
    expect(err.omitted).toBe(true);
  });

  it('counts each unknown key of a strict item as one problem, and looks through optional and default wrappers', () => {
    const item = z.strictObject({ a: z.number().optional() });
    const doc = z.strictObject({ list: z.array(item).optional(), other: z.array(item).default([]) });
    const err = thrown(() => parseBounded(doc, { list: Array.from({ length: 60 }, (_, i) => ({ [`k${i}`]: 1, [`j${i}`]: 2 })) }, 'doc'));
    expect(err.problems).toHaveLength(100);
    expect(err.problems[0]).toMatchObject({ errorName: 'fieldIsNotAllowed', path: ['list', 0, 'k0'] });
    expect(err.problems[1]).toMatchObject({ errorName: 'fieldIsNotAllowed', path: ['list', 0, 'j0'] });
    expect(err.omitted).toBe(true);
  });

  it('answers exactly as parseBody when there are 100 problems or fewer, short and long lists alike', () => {
    const doc = z.strictObject({ name: z.string(), rules: z.array(z.strictObject({ id: z.string(), n: z.number() })).min(1) });
    const cases: unknown[] = [
      { name: 1, rules: [{ id: 'a', n: 'x' }] },
      { name: 'a', rules: Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, n: i % 7 === 0 ? 'x' : i })) },
      { name: 'a', rules: Array.from({ length: 100 }, () => ({ id: 'r', n: 'x' })) },
      { name: 'a', rules: [], extra: true },
      { rules: Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, n: i, x: 1 })) },
    ];
    for (const body of cases) {
      const expected = thrown(() => parseBody(doc, body, 'scenario'));
      const err = thrown(() => parseBounded(doc, body, 'scenario'));
      expect({ message: err.message, problems: err.problems, omitted: err.omitted }).toEqual({ message: expected.message, problems: expected.problems, omitted: expected.omitted });
    }
  });

  it('parses a valid long document to what parseBody gives', () => {
    const doc = z.array(z.strictObject({ id: z.string(), n: z.number().default(7) }));
    const body = Array.from({ length: 500 }, (_, i) => (i % 2 === 0 ? { id: `r${i}` } : { id: `r${i}`, n: i }));
    expect(parseBounded(doc, body, 'items')).toEqual(parseBody(doc, body, 'items'));
    expect(parseBounded(doc, body, 'items')[0]).toEqual({ id: 'r0', n: 7 });
  });
});

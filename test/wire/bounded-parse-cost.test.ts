/**
 * What parseBounded examines, counted: which lists are long, which wrappers it looks through, when it stops, and
 * that whatever it skips, it answers as parseBody does. (bounded-parse.test.ts holds the main cases.)
 */
import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { parseBody, parseBounded } from '../../src/wire/validation.js';
import { counted, thrown } from '../support/wire.js';

const wrong = (n: number): string[] => Array.from({ length: n }, () => 'x');

describe('what parseBounded examines', () => {
  it.each([
    ['optional', (s: z.ZodType) => s.optional()],
    ['nullable', (s: z.ZodType) => s.nullable()],
    ['default', (s: z.ZodType) => s.default([])],
    ['readonly', (s: z.ZodType) => s.readonly()],
  ])('looks through a %s wrapper to the long list inside', (_name, wrap) => {
    const { schema, calls } = counted();
    const err = thrown(() => parseBounded(z.object({ list: wrap(z.array(schema)) }), { list: wrong(10_000) }, 'doc'));
    expect(calls.n).toBe(101);
    expect(err.problems).toHaveLength(100);
    expect(err.problems[99]).toMatchObject({ errorName: 'fieldHasInvalidValue', path: ['list', 99] });
    expect(err.omitted).toBe(true);
  });

  it('does not look through a catch, which zod answers with its fallback instead of refusing', () => {
    expect(parseBounded(z.object({ list: z.array(z.number()).catch([]) }), { list: wrong(200) }, 'doc')).toStrictEqual({ list: [] });
  });

  it('examines a list of 16 items once, as parseBody does, and a list of 17 item by item first', () => {
    const short = counted();
    thrown(() => parseBounded(z.array(short.schema), wrong(16), 'items'));
    expect(short.calls.n).toBe(16);
    const long = counted();
    thrown(() => parseBounded(z.array(long.schema), wrong(17), 'items'));
    expect(long.calls.n).toBe(34);
  });

  it('weighs an item by its unknown keys, so it stops after 51 items with two each', () => {
    const { schema, calls } = counted();
    const item = z.strictObject({ a: schema.optional() });
    const err = thrown(() => parseBounded(z.array(item), Array.from({ length: 200 }, (_, i) => ({ a: i, [`k${i}`]: 1, [`j${i}`]: 2 })), 'items'));
    expect(calls.n).toBe(51);
    expect(err.problems).toHaveLength(100);
    expect(err.problems[99]).toMatchObject({ errorName: 'fieldIsNotAllowed', path: [49, 'j49'] });
    expect(err.omitted).toBe(true);
  });

  it('goes on to the next field while it has found 100 problems, and stops at 101', () => {
    const { schema, calls } = counted();
    const doc = z.object({ a: z.array(z.number()), b: z.array(schema) });
    const err = thrown(() => parseBounded(doc, { a: wrong(100), b: wrong(5_000) }, 'doc'));
    expect(calls.n).toBe(1);
    expect(err.problems).toHaveLength(100);
    expect(err.problems[99]).toMatchObject({ path: ['a', 99] });
    expect(err.omitted).toBe(true);
  });

  it('does not examine again, whole, an item whose own long lists were wrong', () => {
    const { schema, calls } = counted();
    const doc = z.array(z.object({ rules: z.array(schema) }));
    const err = thrown(() => parseBounded(doc, Array.from({ length: 17 }, () => ({ rules: wrong(17) })), 'scenarios'));
    expect(calls.n).toBe(101);
    expect(err.problems.slice(15, 19).map((p) => p.path)).toStrictEqual([
      [0, 'rules', 15],
      [0, 'rules', 16],
      [1, 'rules', 0],
      [1, 'rules', 1],
    ]);
  });

  it('answers as parseBody when its long lists hold exactly 100 problems and the rest of the document more', () => {
    const doc = z.object({ name: z.string(), rules: z.array(z.number()) });
    const body = { name: 1, rules: [...wrong(100), 1, 2, 3] };
    const expected = thrown(() => parseBody(doc, body, 'scenario'));
    const err = thrown(() => parseBounded(doc, body, 'scenario'));
    expect(err.problems).toStrictEqual(expected.problems);
    expect(err.problems[0]).toMatchObject({ errorName: 'fieldMustBeString', path: ['name'] });
    expect(err.problems).toHaveLength(100);
    expect(err.omitted).toBe(true);
  });
});

describe('documents of the wrong shape', () => {
  it.each<[string, z.ZodType, unknown, [string, string]]>([
    ['nothing (an empty file) where an object is due', z.object({ name: z.string() }), undefined, ['fieldIsMissing', 'doc is required']],
    ['null where an object is due', z.object({ name: z.string() }), null, ['fieldIsNull', 'doc must not be null']],
    ['a list where an object is due, even one with a field named 0', z.object({ '0': z.array(z.number()) }), [wrong(200)], ['fieldMustBeObject', 'doc must be a JSON object']],
    ['a long text where a list is due', z.array(z.number()), 'x'.repeat(200), ['fieldMustBeArray', 'doc must be an array']],
    ['a long list where a text is due', z.string(), wrong(20), ['fieldMustBeString', 'doc must be a string']],
    ['an object where a list is due', z.array(z.number()), { a: 1 }, ['fieldMustBeArray', 'doc must be an array']],
  ])('refuses %s as parseBody does', (_name, schema, body, [errorName, message]) => {
    const err = thrown(() => parseBounded(schema, body, 'doc'));
    expect(err.problems).toStrictEqual([{ errorName, message, path: [] }]);
    expect(err.problems).toStrictEqual(thrown(() => parseBody(schema, body, 'doc')).problems);
  });

  it('reads a long text as a value, not as a list of characters', () => {
    expect(parseBounded(z.object({ name: z.string() }), { name: 'x'.repeat(40) }, 'doc')).toStrictEqual({ name: 'x'.repeat(40) });
  });

  it('calls the document "body" unless told otherwise', () => {
    expect(thrown(() => parseBounded(z.array(z.number()), 'x')).problems).toStrictEqual([{ errorName: 'fieldMustBeArray', message: 'body must be an array', path: [] }]);
  });
});

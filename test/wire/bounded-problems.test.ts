/** At most 100 problems per answer (issue 13, defect 5): how the wire layer bounds them, and cheaply. */
import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { HttpError, renderError } from '../../src/http/errors.js';
import { WireError, schemaError } from '../../src/wire/problems.js';
import { parseBody, toFieldProblems } from '../../src/wire/validation.js';

const problem = (i: number) => ({ errorName: 'fieldHasInvalidValue' as const, message: `item ${i} is bad`, path: ['items', i] });

describe('bounded problems', () => {
  it('keeps the first 100 problems of a wire error, flags the rest as omitted and says so in the message', () => {
    const err = schemaError(Array.from({ length: 250 }, (_, i) => problem(i)));
    expect(err.problems).toHaveLength(100);
    expect(err.problems[99]).toEqual(problem(99));
    expect(err.omitted).toBe(true);
    expect(err.message).toBe('The request body does not match the schema (only the first 100 problems are listed; more were omitted)');
  });

  it('keeps 100 problems as they are', () => {
    const err = new WireError('bodyDoesNotMatchSchema', 'bad', Array.from({ length: 100 }, (_, i) => problem(i)));
    expect(err.problems).toHaveLength(100);
    expect(err.omitted).toBe(false);
    expect(err.message).toBe('bad');
  });

  it('stops converting zod issues once past 100, however many there are', () => {
    const schema = z.array(z.strictObject({ a: z.string() }));
    const body = Array.from({ length: 50_000 }, () => ({ a: 1, b: 2 }));
    const result = schema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error!.issues.length).toBeGreaterThan(50_000);
    expect(toFieldProblems(result.error!.issues, body, 'body', schema)).toHaveLength(101);
  });

  it('stops within one issue of many unknown keys too', () => {
    const schema = z.strictObject({ a: z.string().optional() });
    const body = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));
    const result = schema.safeParse(body);
    expect(toFieldProblems(result.error!.issues, body, 'body', schema)).toHaveLength(101);
    expect(() => parseBody(schema, body)).toThrow(expect.objectContaining({ omitted: true, problems: expect.any(Array) }));
  });

  it('renders at most 100 validationErrors for any error, URL problems included', () => {
    const err = new HttpError('urlInvalid', 'The query is not valid', {
      problems: Array.from({ length: 300 }, (_, i) => ({ errorName: 'fieldHasInvalidValue' as const, message: `p${i}` })),
    });
    const { body } = renderError(err);
    expect(body.validationErrors).toHaveLength(100);
    expect(body.message).toBe('The query is not valid (only the first 100 problems are listed; more were omitted)');
  });
});

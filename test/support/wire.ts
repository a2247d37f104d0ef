/** Helpers for wire tests. */
import * as z from 'zod';
import { WireError } from '../../src/wire/problems.js';

/** The WireError `fn` throws; anything else it throws is rethrown, and returning fails the test. */
export function thrown(fn: () => unknown): WireError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
  throw new Error('expected a WireError');
}

/** An item schema that counts how many items zod examined: a number is right, anything else wrong. */
export function counted(): { schema: z.ZodType; calls: { n: number } } {
  const calls = { n: 0 };
  return { schema: z.custom<number>((v) => (calls.n++, typeof v === 'number'), 'must be a number'), calls };
}

/** Helpers for domain tests. */
import { DomainError } from '../../src/domain/errors.js';

/** The domain code `fn` throws, or undefined when it returns; anything else it throws is rethrown. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return undefined;
}

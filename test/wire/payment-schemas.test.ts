import { describe, expect, it } from '@jest/globals';
import { WireError } from '../../src/wire/problems.js';
import { partialRefundBody } from '../../src/wire/sale-schemas.js';
import { parseBody, toJsonPath } from '../../src/wire/validation.js';

/** [errorName, JSONPath, message] of every problem, or 'ok' when the body parses. */
function problemsOf(body: unknown): unknown {
  try {
    parseBody(partialRefundBody, body);
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, toJsonPath(p.path ?? []), p.message]);
    throw err;
  }
}

/** [errorName, JSONPath] of every problem: for the problems whose wording validation.ts writes, not this schema. */
function namesOf(body: unknown): unknown {
  const problems = problemsOf(body);
  return Array.isArray(problems) ? problems.map((p: unknown[]) => p.slice(0, 2)) : problems;
}

const body = (value: Record<string, unknown> = {}, reference: unknown = 'refund-0001') => ({
  value: { amount: 250, currency: 'GBP', ...value },
  reference,
});

describe('the partial refund body', () => {
  it('parses a partial refund to its own shape', () => {
    expect(parseBody(partialRefundBody, body())).toStrictEqual({ value: { amount: 250, currency: 'GBP' }, reference: 'refund-0001' });
  });

  it('takes the smallest amount, 1, and references of 1 and of 128 characters', () => {
    expect(parseBody(partialRefundBody, body({ amount: 1 }, 'r'))).toStrictEqual({ value: { amount: 1, currency: 'GBP' }, reference: 'r' });
    const longest = 'x'.repeat(128);
    expect(parseBody(partialRefundBody, body({}, longest))).toStrictEqual({ value: { amount: 250, currency: 'GBP' }, reference: longest });
  });

  it.each([
    ['an amount of 0', body({ amount: 0 }), ['integerIsTooSmall', '$.value.amount', 'amount must be 1 or more']],
    ['a negative amount', body({ amount: -5 }), ['integerIsTooSmall', '$.value.amount', 'amount must be 1 or more']],
    ['a lower-case currency', body({ currency: 'gbp' }), ['stringFailedRegexCheck', '$.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    ['a currency of 2 letters', body({ currency: 'GB' }), ['stringFailedRegexCheck', '$.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    ['a currency with a letter after it', body({ currency: 'GBPX' }), ['stringFailedRegexCheck', '$.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    ['a currency with a letter before it', body({ currency: 'XGBP' }), ['stringFailedRegexCheck', '$.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    ['a currency with a digit', body({ currency: 'G1P' }), ['stringFailedRegexCheck', '$.value.currency', 'currency must be 3 upper-case letters (ISO 4217)']],
    ['an empty reference', body({}, ''), ['stringIsTooShort', '$.reference', 'reference must be between 1 and 128 characters']],
    ['a reference of 129 characters', body({}, 'x'.repeat(129)), ['stringIsTooLong', '$.reference', 'reference must be between 1 and 128 characters']],
  ])('refuses %s with the schema’s own message', (_name, refund, problem) => {
    expect(problemsOf(refund)).toStrictEqual([problem]);
  });

  it.each([
    ['a fractional amount', body({ amount: 1.5 }), [['fieldMustBeInteger', '$.value.amount']]],
    ['an amount written as text', body({ amount: '250' }), [['fieldMustBeInteger', '$.value.amount']]],
    ['a currency that is no string', body({ currency: 826 }), [['fieldMustBeString', '$.value.currency']]],
    ['a reference that is no string', body({}, 7), [['fieldMustBeString', '$.reference']]],
    ['a value that is no object', { value: 250, reference: 'r' }, [['fieldMustBeObject', '$.value']]],
    ['an empty value', { value: {}, reference: 'r' }, [['fieldIsMissing', '$.value.amount'], ['fieldIsMissing', '$.value.currency']]],
    ['an empty body', {}, [['fieldIsMissing', '$.value'], ['fieldIsMissing', '$.reference']]],
  ])('refuses %s', (_name, refund, problems) => {
    expect(namesOf(refund)).toStrictEqual(problems);
  });

  it('reports every problem of the body at once', () => {
    expect(namesOf({ value: { amount: 0, currency: 'gbp' }, reference: '' })).toStrictEqual([
      ['integerIsTooSmall', '$.value.amount'],
      ['stringFailedRegexCheck', '$.value.currency'],
      ['stringIsTooShort', '$.reference'],
    ]);
  });
});

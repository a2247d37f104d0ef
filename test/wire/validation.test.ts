import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { WireError } from '../../src/wire/problems.js';
import { oneOf } from '../../src/wire/schemas.js';
import { parseBody, toFieldProblems, toJsonPath } from '../../src/wire/validation.js';

/** The problems parseBody reports for a body, or 'ok' when it parses. */
function problemsOf(schema: z.ZodType, body: unknown, rootLabel?: string): unknown {
  try {
    parseBody(schema, body, rootLabel);
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems;
    throw err;
  }
}

describe('JSONPaths of field paths', () => {
  it.each([
    [[], '$'],
    [['a'], '$.a'],
    [['_a$1'], '$._a$1'],
    [['$'], '$.$'],
    [['items', 0, 'x'], '$.items[0].x'],
    [[0, 12], '$[0][12]'],
    [['1a'], "$['1a']"],
    [['a-b'], "$['a-b']"],
    [['a b'], "$['a b']"],
    [[''], "$['']"],
    [["it's"], "$['it\\'s']"],
    [['back\\slash'], "$['back\\\\slash']"],
    [["a\\'b"], "$['a\\\\\\'b']"],
    [["''"], "$['\\'\\'']"],
  ] as const)('renders %p as %s', (path, expected) => expect(toJsonPath(path)).toBe(expected));
});

describe('field problems by kind of value', () => {
  const body = z.object({
    s: z.string(),
    n: z.number(),
    i: z.int(),
    b: z.boolean(),
    o: z.object({ x: z.string() }),
    a: z.array(z.string()),
  });
  const valid = { s: 'x', n: 1.5, i: 2, b: true, o: { x: 'y' }, a: ['z'] };

  it('parses a valid body into its output', () => {
    expect(parseBody(body, valid)).toStrictEqual(valid);
  });

  it.each([
    ['s', 1, 'fieldMustBeString', 's must be a string, not the number 1: quote it'],
    ['n', 'one', 'fieldMustBeInteger', 'n must be an integer'],
    ['i', 1.5, 'fieldMustBeInteger', 'i must be an integer'],
    ['i', '2', 'fieldMustBeInteger', 'i must be an integer'],
    ['b', 'yes', 'fieldMustBeBoolean', 'b must be a boolean'],
    ['o', [], 'fieldMustBeObject', 'o must be a JSON object'],
    ['o', 'x', 'fieldMustBeObject', 'o must be a JSON object'],
    ['a', {}, 'fieldMustBeArray', 'a must be an array'],
  ])('reports a wrong type of %s (%p) as %s', (field, value, errorName, message) => {
    expect(problemsOf(body, { ...valid, [field]: value })).toStrictEqual([{ errorName, message, path: [field] }]);
  });

  it.each(['s', 'n', 'i', 'b', 'o', 'a'])('reports a missing %s as fieldIsMissing and a null one as fieldIsNull', (field) => {
    const without: Record<string, unknown> = { ...valid };
    delete without[field];
    expect(problemsOf(body, without)).toStrictEqual([{ errorName: 'fieldIsMissing', message: `${field} is required`, path: [field] }]);
    expect(problemsOf(body, { ...valid, [field]: null })).toStrictEqual([{ errorName: 'fieldIsNull', message: `${field} must not be null`, path: [field] }]);
  });

  it('reports a wrong type the API has no word for as fieldHasInvalidValue with zod’s message', () => {
    const problems = problemsOf(z.object({ big: z.bigint() }), { big: 1 }) as { errorName: string; message: string }[];
    expect(problems).toHaveLength(1);
    expect(problems[0]?.errorName).toBe('fieldHasInvalidValue');
    expect(problems[0]?.message).toMatch(/^big /);
    expect(problems[0]?.message).not.toBe('big must be undefined');
  });

  it('reports a field inherited from the prototype as missing', () => {
    expect(problemsOf(z.object({ toString: z.string() }), {})).toStrictEqual([{ errorName: 'fieldIsMissing', message: 'toString is required', path: ['toString'] }]);
  });

  it('reports a whole body of the wrong type against the root label', () => {
    expect(problemsOf(body, 'text')).toStrictEqual([{ errorName: 'fieldMustBeObject', message: 'body must be a JSON object', path: [] }]);
    expect(problemsOf(body, null, 'The state')).toStrictEqual([{ errorName: 'fieldIsNull', message: 'The state must not be null', path: [] }]);
    expect(problemsOf(body, undefined)).toStrictEqual([{ errorName: 'fieldIsMissing', message: 'body is required', path: [] }]);
  });
});

describe('field problems by rule', () => {
  const body = z.object({
    text: z.string().min(2, 'must be at least 2 characters').max(4, 'must be at most 4 characters'),
    count: z.int().min(1, 'must be 1 or more').max(9, 'must be 9 or less'),
    code: z.string().regex(/^[A-Z]+$/, 'must be upper-case letters'),
    when: z.iso.datetime({ offset: true, error: 'must be a date-time' }),
    even: z.int().refine((v) => v % 2 === 0, { error: 'must be even', params: { errorName: 'integerIsTooLarge' } }),
    odd: z.int().refine((v) => v % 2 === 1, { error: 'must be odd' }),
    kind: z.literal('a'),
  });
  const valid = { text: 'abc', count: 5, code: 'AB', when: '2030-01-01T00:00:00Z', even: 2, odd: 1, kind: 'a' };

  it.each([
    ['text', 'a', 'stringIsTooShort', 'text must be at least 2 characters'],
    ['text', 'abcde', 'stringIsTooLong', 'text must be at most 4 characters'],
    ['count', 0, 'integerIsTooSmall', 'count must be 1 or more'],
    ['count', 10, 'integerIsTooLarge', 'count must be 9 or less'],
    ['code', 'ab', 'stringFailedRegexCheck', 'code must be upper-case letters'],
    ['when', '2030-01-01', 'dateHasInvalidFormat', 'when must be a date-time'],
    ['even', 3, 'integerIsTooLarge', 'even must be even'],
    ['odd', 2, 'fieldHasInvalidValue', 'odd must be odd'],
  ])('reports %s = %p as %s', (field, value, errorName, message) => {
    expect(parseBody(body, valid)).toStrictEqual(valid);
    expect(problemsOf(body, { ...valid, [field]: value })).toStrictEqual([{ errorName, message, path: [field] }]);
  });

  it('reports any other rule as fieldHasInvalidValue, with zod’s message after the field name', () => {
    const problems = problemsOf(body, { ...valid, kind: 'b' }) as { errorName: string; message: string; path: unknown }[];
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ errorName: 'fieldHasInvalidValue', path: ['kind'] });
    expect(problems[0]?.message).toMatch(/^kind .+/);
  });
});

describe('field problems of unions', () => {
  const body = z.object({ by: z.union([z.string(), z.number()], { error: 'must be text or a number' }) });

  it('reports a missing union as fieldIsMissing and a null one as fieldIsNull', () => {
    expect(problemsOf(body, {})).toStrictEqual([{ errorName: 'fieldIsMissing', message: 'by is required', path: ['by'] }]);
    expect(problemsOf(body, { by: null })).toStrictEqual([{ errorName: 'fieldIsNull', message: 'by must not be null', path: ['by'] }]);
  });

  it('reports a value matching no member as fieldHasInvalidValue with the union’s message', () => {
    expect(problemsOf(body, { by: true })).toStrictEqual([{ errorName: 'fieldHasInvalidValue', message: 'by must be text or a number', path: ['by'] }]);
  });
});

describe('the list of field problems', () => {
  const body = z.object({
    name: z.string().min(2, 'too short').regex(/^[a-z]+$/, 'lower case only'),
    items: z.array(z.object({ id: z.int() })),
    tags: z.array(z.string()),
    'odd key': z.string(),
  });

  it('lists one problem per field, the first rule it breaks, in the order zod found them', () => {
    expect(problemsOf(body, { name: 'A', items: [{ id: 1 }, { id: 'x' }, {}], tags: ['a', 2], 'odd key': 3 })).toStrictEqual([
      { errorName: 'stringIsTooShort', message: 'name too short', path: ['name'] },
      { errorName: 'fieldMustBeInteger', message: 'id must be an integer', path: ['items', 1, 'id'] },
      { errorName: 'fieldIsMissing', message: 'id is required', path: ['items', 2, 'id'] },
      { errorName: 'fieldMustBeString', message: 'tags must be a string, not the number 2: quote it', path: ['tags', 1] },
      { errorName: 'fieldMustBeString', message: 'odd key must be a string, not the number 3: quote it', path: ['odd key'] },
    ]);
  });

  it('labels a problem at an index of a top-level array with the root label', () => {
    expect(problemsOf(z.array(z.string()), ['a', 1], 'list')).toStrictEqual([{ errorName: 'fieldMustBeString', message: 'list must be a string, not the number 1: quote it', path: [1] }]);
  });

  it('keeps numeric path segments numbers and turns other keys into strings', () => {
    const problems = toFieldProblems(
      [
        { code: 'custom', message: 'bad', path: ['a', 0, Symbol.for('s')], input: undefined },
        { code: 'custom', message: 'worse', path: [1], input: undefined },
      ],
      { a: [{}] },
      'root',
    );
    expect(problems).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: 'Symbol(s) bad', path: ['a', 0, 'Symbol(s)'] },
      { errorName: 'fieldHasInvalidValue', message: 'root worse', path: [1] },
    ]);
  });

  it('reads the value of a problem through objects and arrays to tell missing from wrong; nothing is inside a string or null', () => {
    expect(
      toFieldProblems(
        [
          { code: 'invalid_type', expected: 'string', message: 'x', path: ['a', 0, 'b'], input: undefined },
          { code: 'invalid_type', expected: 'string', message: 'x', path: ['a', 1, 'b'], input: undefined },
          { code: 'invalid_type', expected: 'string', message: 'x', path: ['c', 'd'], input: undefined },
          { code: 'invalid_type', expected: 'string', message: 'x', path: ['e', 'f'], input: undefined },
          { code: 'invalid_type', expected: 'string', message: 'x', path: ['c', 0], input: undefined },
        ],
        { a: [{ b: 1 }, { b: null }], c: 'text', e: null },
        'root',
      ),
    ).toStrictEqual([
      { errorName: 'fieldMustBeString', message: 'b must be a string, not the number 1: quote it', path: ['a', 0, 'b'] },
      { errorName: 'fieldIsNull', message: 'b must not be null', path: ['a', 1, 'b'] },
      { errorName: 'fieldIsMissing', message: 'd is required', path: ['c', 'd'] },
      { errorName: 'fieldIsMissing', message: 'f is required', path: ['e', 'f'] },
      { errorName: 'fieldIsMissing', message: 'c is required', path: ['c', 0] },
    ]);
  });

  it('throws bodyDoesNotMatchSchema with the standard message', () => {
    let error: unknown;
    try {
      parseBody(body, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(WireError);
    expect((error as WireError).code).toBe('bodyDoesNotMatchSchema');
    expect((error as WireError).message).toBe('The request body does not match the schema');
  });

  it('returns zod’s output, defaults and transforms applied', () => {
    const schema = z.object({ n: z.string().transform((s) => s.length), d: z.string().default('x') });
    expect(parseBody(schema, { n: 'abc' })).toStrictEqual({ n: 3, d: 'x' });
  });
});

describe('problems that teach the fix', () => {
  it.each([
    [51, 'code must be a string, not the number 51: quote it'],
    [0, 'code must be a string, not the number 0: quote it'],
    [-1.5, 'code must be a string, not the number -1.5: quote it'],
    [true, 'code must be a string, not the boolean true: quote it'],
    [false, 'code must be a string, not the boolean false: quote it'],
    [{}, 'code must be a string'],
    [['51'], 'code must be a string'],
  ])('says to quote %p where a string is due, naming the value as read, with the same errorName and path', (value, message) => {
    expect(problemsOf(z.object({ outcome: z.object({ code: z.string() }) }), { outcome: { code: value } })).toStrictEqual([
      { errorName: 'fieldMustBeString', message, path: ['outcome', 'code'] },
    ]);
  });

  it('never repeats a card number, a security code or a password given unquoted, at any depth', () => {
    const schema = z.object({
      paymentInstrument: z.object({ cardNumber: z.string(), cvc: z.string() }),
      credentials: z.array(z.object({ password: z.string() })),
      cardNumbers: z.array(z.string()),
      clientSecret: z.string(),
    });
    const body = { paymentInstrument: { cardNumber: 4444333322221111, cvc: 123 }, credentials: [{ password: 1234 }], cardNumbers: [5555555555554444], clientSecret: true };
    expect(problemsOf(schema, body)).toStrictEqual([
      { errorName: 'fieldMustBeString', message: 'cardNumber must be a string, not a number: quote it', path: ['paymentInstrument', 'cardNumber'] },
      { errorName: 'fieldMustBeString', message: 'cvc must be a string, not a number: quote it', path: ['paymentInstrument', 'cvc'] },
      { errorName: 'fieldMustBeString', message: 'password must be a string, not a number: quote it', path: ['credentials', 0, 'password'] },
      { errorName: 'fieldMustBeString', message: 'cardNumbers must be a string, not a number: quote it', path: ['cardNumbers', 0] },
      { errorName: 'fieldMustBeString', message: 'clientSecret must be a string, not a boolean: quote it', path: ['clientSecret'] },
    ]);
    // A body that is itself the value (an update of one field) is labelled by the field.
    expect(problemsOf(z.string(), 123, 'cvc')).toStrictEqual([{ errorName: 'fieldMustBeString', message: 'cvc must be a string, not a number: quote it', path: [] }]);
  });

  const OPERATION = oneOf(['sale', 'refund', 'partialRefund', 'reversal']);
  const ALL = "must be 'sale' or 'refund' or 'partialRefund' or 'reversal'";

  it.each([
    ['sael', `operation ${ALL}; did you mean 'sale'?`],
    ['refnud', `operation ${ALL}; did you mean 'refund'?`],
    ['partialrefund', `operation ${ALL}; did you mean 'partialRefund'?`],
    ['SALE', `operation ${ALL}; did you mean 'sale'?`],
    ['REVERSAL', `operation ${ALL}; did you mean 'reversal'?`],
    ['capture', `operation ${ALL}`],
    ['s', `operation ${ALL}`],
    ['', `operation ${ALL}`],
  ])('answers the misspelt value %p of a field with listed values with the closest one, when one is close', (value, message) => {
    expect(problemsOf(z.object({ when: z.object({ operation: OPERATION }) }), { when: { operation: value } })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message, path: ['when', 'operation'] },
    ]);
  });

  it('gives no hint when only one value is allowed: the message names it already', () => {
    expect(problemsOf(z.object({ settlement: oneOf(['failed']) }), { settlement: 'faild' })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: "settlement must be 'failed'", path: ['settlement'] },
    ]);
    expect(problemsOf(z.object({ format: z.literal('token-sim-state', { error: "must be 'token-sim-state'" }) }), { format: 'token-sim-stat' })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: "format must be 'token-sim-state'", path: ['format'] },
    ]);
  });

  it('hints for zod’s own enums, and for the discriminator of a union', () => {
    expect(problemsOf(z.object({ kind: z.enum(['credit', 'debit'], { error: "must be 'credit' or 'debit'" }) }), { kind: 'debt' })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: "kind must be 'credit' or 'debit'; did you mean 'debit'?", path: ['kind'] },
    ]);
    const instrument = z.discriminatedUnion('type', [z.object({ type: z.literal('card/plain') }), z.object({ type: z.literal('card/token') })], { error: "must be 'card/plain' or 'card/token'" });
    expect(problemsOf(z.object({ paymentInstrument: instrument }), { paymentInstrument: { type: 'card/plian' } })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: "type must be 'card/plain' or 'card/token'; did you mean 'card/plain'?", path: ['paymentInstrument', 'type'] },
    ]);
  });

  it('says to quote a number given for a field with listed values, and hints nothing then', () => {
    expect(problemsOf(z.object({ operation: OPERATION }), { operation: 1 })).toStrictEqual([
      { errorName: 'fieldMustBeString', message: 'operation must be a string, not the number 1: quote it', path: ['operation'] },
    ]);
  });
});

describe('values that no hint names', () => {
  it('refuses text where one of a few numbers is due with zod’s list of them, and no hint', () => {
    expect(problemsOf(z.object({ n: z.literal([1, 2]) }), { n: 'one' })).toStrictEqual([
      { errorName: 'fieldHasInvalidValue', message: 'n Invalid option: expected one of 1|2', path: ['n'] },
    ]);
  });
});

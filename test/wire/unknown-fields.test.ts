import { describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { WireError } from '../../src/wire/problems.js';
import { closestField, closestValue, definedFieldsAt, editDistance, meantValueHint, notAllowedMessage } from '../../src/wire/unknown-fields.js';
import { parseBody, toFieldProblems } from '../../src/wire/validation.js';

/** The problems parseBody reports as [errorName, jsonPath-ish path, message], or 'ok'. */
function problemsOf(schema: z.ZodType, body: unknown): unknown {
  try {
    parseBody(schema, body);
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, p.path, p.message]);
    throw err;
  }
}

describe('edit distance', () => {
  it.each([
    ['', '', 0],
    ['a', '', 1],
    ['', 'ab', 2],
    ['rules', 'rules', 0],
    ['rulez', 'rules', 1],
    ['token', 'tokens', 1],
    ['opertion', 'operation', 1],
    ['curency', 'currency', 1],
    ['kitten', 'sitting', 3],
    ['ab', 'ba', 1],
    ['opreation', 'operation', 1],
    ['abcd', 'badc', 2],
    ['ca', 'abc', 3],
    ['Operation', 'operation', 1],
  ])('%p → %p takes %i edits', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('the "did you mean" hint', () => {
  const WHEN = ['operation', 'username', 'entity', 'namespace', 'cardNumber', 'cardHolderName', 'currency', 'transactionReference', 'amount', 'nth', 'every', 'times', 'between'];
  const SCENARIO = ['name', 'description', 'profile', 'tokens', 'rules'];

  it.each([
    ['opertion', WHEN, 'operation'],
    ['curency', WHEN, 'currency'],
    ['Operation', WHEN, 'operation'],
    ['nt', WHEN, 'nth'],
    ['time', WHEN, 'times'],
    ['rulez', SCENARIO, 'rules'],
    ['token', SCENARIO, 'tokens'],
    ['nmae', SCENARIO, 'name'],
    ['descripton', SCENARIO, 'description'],
    ['operationMode', WHEN, 'operation'],
  ])('suggests for %p the closest defined field', (key, fields, hint) => expect(closestField(key, fields)).toBe(hint));

  it.each([
    ['colour', WHEN],
    ['x', ['id']],
    ['ab', ['id']],
    ['delayMs', WHEN],
    ['operationModes', WHEN],
    ['rule', []],
  ])('suggests nothing for %p when no defined field is close', (key, fields) => expect(closestField(key, fields)).toBeUndefined());

  it('allows max(2, a third of the key) edits, and fewer than the key has characters', () => {
    // 9 characters: up to 3 edits.
    expect(closestField('abcdefghi', ['abcdefxyz'])).toBe('abcdefxyz');
    expect(closestField('abcdefghi', ['abcdewxyz'])).toBeUndefined();
    // 5 characters: up to 2 edits.
    expect(closestField('abcde', ['abcxy'])).toBe('abcxy');
    expect(closestField('abcde', ['abwxy'])).toBeUndefined();
    // 2 characters: only 1 edit, so that something of the key is kept.
    expect(closestField('ab', ['ax'])).toBe('ax');
    expect(closestField('ab', ['xy'])).toBeUndefined();
  });

  it('takes the closest, and the first defined on a tie', () => {
    expect(closestField('tims', ['times', 'tim'])).toBe('times');
    expect(closestField('abcx', ['abcy', 'abcz'])).toBe('abcy');
    expect(closestField('abcx', ['abxy', 'abcz'])).toBe('abcz');
  });

  it('writes the message with and without a hint', () => {
    expect(notAllowedMessage('opertion', WHEN)).toBe('opertion is not a field of this object; did you mean operation?');
    expect(notAllowedMessage('colour', WHEN)).toBe('colour is not a field of this object');
  });

  it('measures no field whose length alone puts it out of reach: a long key costs no quadratic table', () => {
    // 200,000 characters against 13 fields: measured, about 5 s and hundreds of MB; skipped, nothing.
    const started = performance.now();
    expect(closestField('x'.repeat(200_000), WHEN)).toBeUndefined();
    expect(closestValue('sale'.repeat(50_000), ['sale', 'refund'])).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the "did you mean" hint for a value', () => {
  const OPERATIONS = ['createToken', 'getToken', 'sale', 'refund', 'partialRefund', 'reversal', 'any'];

  it.each([
    ['sael', 'sale'],
    ['refnd', 'refund'],
    ['createtoken', 'createToken'],
    ['SALE', 'sale'],
    ['ANY', 'any'],
    ['PartialRefund', 'partialRefund'],
  ])('suggests for %p the allowed value it equals but for case, else the closest', (given, meant) => expect(closestValue(given, OPERATIONS)).toBe(meant));

  it.each(['capture', 'x', '', 'SALES!!'])('suggests nothing for %p when no allowed value is close', (given) => expect(closestValue(given, OPERATIONS)).toBeUndefined());

  it('writes the hint in the quotes of the message it follows, and only for a string among several values', () => {
    expect(meantValueHint('sael', OPERATIONS)).toBe("; did you mean 'sale'?");
    expect(meantValueHint('jsno', ['json', 'har'], '')).toBe('; did you mean json?');
    expect(meantValueHint('capture', OPERATIONS)).toBe('');
    expect(meantValueHint(5, OPERATIONS)).toBe('');
    expect(meantValueHint(undefined, OPERATIONS)).toBe('');
    expect(meantValueHint('faild', ['failed'])).toBe('');
  });
});

describe('the fields a schema defines at a path', () => {
  const leaf = z.strictObject({ a: z.string(), bb: z.int().optional() });
  const schema = z.strictObject({
    top: z.string(),
    nested: leaf.optional(),
    list: z.array(leaf),
    byName: z.record(z.string(), leaf),
    either: z.union([z.int(), z.strictObject({ min: z.int(), max: z.int() }), z.strictObject({ max: z.int(), step: z.int() })]),
    refined: leaf.refine(() => true),
    defaulted: leaf.default({ a: 'x' }),
    nullable: leaf.nullable(),
    piped: leaf.transform((v) => v),
    lazy: z.lazy(() => leaf),
    pair: z.tuple([z.string(), leaf]),
    rest: z.tuple([z.string()]).rest(leaf),
    both: z.intersection(z.object({ p: z.string() }), z.object({ q: z.string() })),
    prefaulted: leaf.prefault({ a: 'x' }),
    required: leaf.optional().nonoptional(),
    frozen: leaf.readonly(),
    caught: leaf.catch({ a: 'x' }),
  });

  it.each<[(string | number)[], string[]]>([
    [[], ['top', 'nested', 'list', 'byName', 'either', 'refined', 'defaulted', 'nullable', 'piped', 'lazy', 'pair', 'rest', 'both', 'prefaulted', 'required', 'frozen', 'caught']],
    [['prefaulted'], ['a', 'bb']],
    [['required'], ['a', 'bb']],
    [['frozen'], ['a', 'bb']],
    [['caught'], ['a', 'bb']],
    [['pair', 'x'], []],
    [['rest', 'x'], []],
    [['nested'], ['a', 'bb']],
    [['list', 3], ['a', 'bb']],
    [['byName', 'anything'], ['a', 'bb']],
    [['either'], ['min', 'max', 'step']],
    [['refined'], ['a', 'bb']],
    [['defaulted'], ['a', 'bb']],
    [['nullable'], ['a', 'bb']],
    [['piped'], ['a', 'bb']],
    [['lazy'], ['a', 'bb']],
    [['pair', 1], ['a', 'bb']],
    [['pair', 0], []],
    [['pair', 2], []],
    [['rest', 5], ['a', 'bb']],
    [['both'], ['p', 'q']],
    [['top'], []],
    [['top', 'x'], []],
    [['list', 0, 'a', 'b'], []],
    [['missing'], []],
    [['list', 'a'], []],
    [['nested', 0], []],
    [['toString'], []],
  ])('at %p: %p', (path, fields) => expect(definedFieldsAt(schema, path)).toStrictEqual(fields));
});

describe('unknown keys of strict objects', () => {
  const when = z.strictObject({ operation: z.string().optional(), currency: z.string().optional() });
  const scenario = z.strictObject({ name: z.string(), rules: z.array(z.strictObject({ when: when.optional() })).optional() });

  it('reports each unknown key as fieldIsNotAllowed at its own path, with a hint when one is close', () => {
    expect(problemsOf(scenario, { name: 'n', rules: [{ when: { opertion: 'sale', curency: 'EUR' } }] })).toStrictEqual([
      ['fieldIsNotAllowed', ['rules', 0, 'when', 'opertion'], 'opertion is not a field of this object; did you mean operation?'],
      ['fieldIsNotAllowed', ['rules', 0, 'when', 'curency'], 'curency is not a field of this object; did you mean currency?'],
    ]);
  });

  it('reports unknown keys at the top, next to the other problems, and a key no field is close to without a hint', () => {
    expect(problemsOf(scenario, { rulez: [], colour: 'red' })).toStrictEqual([
      ['fieldIsMissing', ['name'], 'name is required'],
      ['fieldIsNotAllowed', ['rulez'], 'rulez is not a field of this object; did you mean rules?'],
      ['fieldIsNotAllowed', ['colour'], 'colour is not a field of this object'],
    ]);
  });

  it('names a key that is not an identifier with a bracketed JSONPath', () => {
    const problems = toFieldProblems(scenario.safeParse({ name: 'n', 'a b': 1 }).error!.issues, {}, 'body', scenario);
    expect(problems).toStrictEqual([{ errorName: 'fieldIsNotAllowed', message: 'a b is not a field of this object', path: ['a b'] }]);
  });

  it('gives no hint without the schema, and still one problem per key', () => {
    const issues = scenario.safeParse({ name: 'n', rulez: [], nmae: 'x' }).error!.issues;
    expect(toFieldProblems(issues, {}, 'body').map((p) => [p.path, p.message])).toStrictEqual([
      [['rulez'], 'rulez is not a field of this object'],
      [['nmae'], 'nmae is not a field of this object'],
    ]);
  });

  it('leaves objects that are not strict to ignore unknown keys', () => {
    expect(problemsOf(z.object({ name: z.string() }), { name: 'n', nmae: 'x' })).toBe('ok');
  });
});

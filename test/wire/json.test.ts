import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH, checkJsonDepth, jsonDepth, parseJsonText } from '../../src/wire/json.js';
import { WireError } from '../../src/wire/problems.js';

const deep = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

function wireErrorOf(fn: () => unknown): WireError | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
  return undefined;
}

describe('the nesting depth of JSON text', () => {
  it.each([
    ['1', 0],
    ['"text"', 0],
    ['{}', 1],
    ['[]', 1],
    ['[[]]', 2],
    ['{"a":[{"b":{}}]}', 4],
    ['[][]', 1],
    ['[[]][[[]]]', 3],
    ['[{}, {}, {}]', 2],
  ])('of %p is %p', (text, depth) => expect(jsonDepth(text)).toBe(depth));

  it.each([
    ['"[[[{{{"', 0],
    ['["[[[", "{{{"]', 1],
    ['["\\"[[[", 1]', 1],
    ['["\\\\", [1]]', 2],
    ['{"a\\"b": {"c": "]]]"}}', 2],
  ])('ignores brackets inside strings: %p is %p deep', (text, depth) => expect(jsonDepth(text)).toBe(depth));

  it('stops counting once past the limit', () => {
    expect(jsonDepth(deep(10), 2)).toBe(3);
    expect(jsonDepth(deep(10), 10)).toBe(10);
    expect(jsonDepth(deep(100))).toBe(MAX_JSON_DEPTH + 1);
  });

  it('allows 64 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
  });
});

describe('the depth check', () => {
  it('lets 64 levels through', () => {
    expect(() => checkJsonDepth(deep(64))).not.toThrow();
  });

  it('refuses 65 levels with bodyDoesNotMatchSchema about the document itself', () => {
    const error = wireErrorOf(() => checkJsonDepth(deep(65)));
    expect(error?.code).toBe('bodyDoesNotMatchSchema');
    expect(error?.message).toBe('The request body nests too deeply');
    expect(error?.problems).toStrictEqual([{ errorName: 'fieldHasInvalidValue', message: 'the body must not nest deeper than 64 levels', path: [] }]);
  });
});

describe('parsing JSON text', () => {
  it('parses a document', () => {
    expect(parseJsonText(' {"a": [1, "x"]} ')).toStrictEqual({ a: [1, 'x'] });
    expect(parseJsonText('0')).toBe(0);
  });

  it.each(['', '   ', '\n\t'])('refuses %p as an empty body', (text) => {
    const error = wireErrorOf(() => parseJsonText(text));
    expect(error?.code).toBe('bodyIsEmpty');
    expect(error?.message).toBe('The request body must not be empty');
    expect(error?.problems).toStrictEqual([]);
  });

  it.each(['{', 'nope', "{'a': 1}"])('refuses %p as not JSON', (text) => {
    const error = wireErrorOf(() => parseJsonText(text));
    expect(error?.code).toBe('bodyIsNotJson');
    expect(error?.message).toBe('The request body is not valid JSON');
  });

  it('names the document in its messages', () => {
    expect(wireErrorOf(() => parseJsonText('', 'The state'))?.message).toBe('The state must not be empty');
    expect(wireErrorOf(() => parseJsonText('{', 'The state'))?.message).toBe('The state is not valid JSON');
  });

  it('refuses a document nested too deeply', () => {
    expect(wireErrorOf(() => parseJsonText(deep(65)))?.code).toBe('bodyDoesNotMatchSchema');
    expect(parseJsonText(deep(2))).toStrictEqual([[]]);
  });
});

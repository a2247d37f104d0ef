import { describe, expect, it } from '@jest/globals';
import { WireError, fieldError, fieldProblemOf, schemaError } from '../../src/wire/problems.js';

describe('wire errors', () => {
  it('carry a code, a message, a name and no problems by default', () => {
    const error = new WireError('bodyIsEmpty', 'empty');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WireError');
    expect(error.code).toBe('bodyIsEmpty');
    expect(error.message).toBe('empty');
    expect(error.problems).toStrictEqual([]);
  });

  it('make a schema error of a list of problems, with the standard message unless told otherwise', () => {
    const problems = [{ errorName: 'fieldIsMissing' as const, message: 'x is required', path: ['x'] }];
    const error = schemaError(problems);
    expect(error.code).toBe('bodyDoesNotMatchSchema');
    expect(error.message).toBe('The request body does not match the schema');
    expect(error.problems).toStrictEqual(problems);
    expect(schemaError([], 'The state does not match').message).toBe('The state does not match');
  });

  it('make a schema error of a single field', () => {
    const error = fieldError('fieldHasInvalidValue', ['by'], 'by must be positive');
    expect(error.code).toBe('bodyDoesNotMatchSchema');
    expect(error.message).toBe('The request body does not match the schema');
    expect(error.problems).toStrictEqual([{ errorName: 'fieldHasInvalidValue', message: 'by must be positive', path: ['by'] }]);
  });
});

describe('domain refusals about one field', () => {
  it.each([
    ['expiryNotInFuture', ['tokenExpiryDateTime']],
    ['tokenIdTaken', ['tokenId']],
    ['saleTokenNotLive', ['instruction', 'paymentInstrument', 'href']],
    ['refundCurrencyMismatch', ['value', 'currency']],
  ] as const)('place %s at %p as fieldHasInvalidValue with the refusal’s message', (code, path) => {
    expect(fieldProblemOf(code, 'the message')).toStrictEqual({ errorName: 'fieldHasInvalidValue', message: 'the message', path });
  });

  it.each([
    'tokenNotFound',
    'entityNotConfigured',
    'namespaceFull',
    'currencyNotAccepted',
    'networkNotAccepted',
    'storedCardExpired',
    'issuerFailed',
  ] as const)('do not include %s', (code) => {
    expect(fieldProblemOf(code, 'the message')).toBeUndefined();
  });
});

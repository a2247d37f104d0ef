/**
 * The sandbox's magic values as one declared table (decision 0057): its rules tested directly, and the catalogue
 * that GET /_sim/magic-values lists, each entry's effect the one the sale's own rules give. Values are this
 * test's own copies.
 */
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_REFUSAL_CODE,
  EXPIRED_CARD_CODE,
  MAGIC_NAMES,
  NO_BILLING_ADDRESS,
  POSTCODE_RISKS,
  REFUSAL_DESCRIPTIONS,
  UNLISTED_REFUSAL,
  magicCatalogue,
  outcomeForName,
  refusalWith,
  riskFactorsFor,
} from '../../src/domain/magic-values.js';
import { REFUSALS } from '../support/refusals.js';

const both = (risk: string) => [
  { risk, detail: 'address' },
  { risk, detail: 'postcode' },
];
const POSTCODES: [string, { risk: string; detail: string }[]][] = [
  ['AAAA', []],
  ['CCCC', [{ risk: 'not_matched', detail: 'address' }]],
  ['FFFF', [{ risk: 'not_matched', detail: 'postcode' }]],
  ['JJJJ', both('not_matched')],
  ['EEEE', both('not_checked')],
  ['HHHH', both('not_supplied')],
];

describe('the table', () => {
  it('declares the names, codes and postal codes of the sandbox', () => {
    expect(MAGIC_NAMES).toStrictEqual({ error: 'ERROR', refused: 'REFUSED' });
    expect([DEFAULT_REFUSAL_CODE, EXPIRED_CARD_CODE, UNLISTED_REFUSAL, NO_BILLING_ADDRESS]).toStrictEqual(['5', '33', 'REFUSED', 'HHHH']);
    expect(Object.entries(REFUSAL_DESCRIPTIONS)).toStrictEqual(REFUSALS.map(([code, description]) => [code, description]));
    expect(Object.entries(POSTCODE_RISKS)).toStrictEqual(POSTCODES);
  });

  it('gives a refusal the description asked for, else the table’s, else REFUSED', () => {
    expect(refusalWith('51')).toStrictEqual({ code: '51', description: 'LIMIT EXCEEDED' });
    expect(refusalWith('51', 'DO NOT HONOUR')).toStrictEqual({ code: '51', description: 'DO NOT HONOUR' });
    expect(refusalWith('99')).toStrictEqual({ code: '99', description: 'REFUSED' });
  });

  it('hands out copies of the risk factors: changing an answer never changes the table', () => {
    const first = riskFactorsFor('jjjj');
    first[0]!.risk = 'not_checked';
    first.pop();
    expect(riskFactorsFor('JJJJ')).toStrictEqual(both('not_matched'));
    expect(riskFactorsFor(' zzzz ')).toStrictEqual([]);
    expect(riskFactorsFor('TOSTRING')).toStrictEqual([]);
  });

  it('reads a REFUSED name’s code with 1 to 3 digits only', () => {
    expect(outcomeForName('refused007')).toStrictEqual({ kind: 'refuse', refusal: { code: '7', description: 'REFUSED' } });
    expect(outcomeForName('REFUSED1234')).toStrictEqual({ kind: 'approve' });
    expect(outcomeForName('XREFUSED')).toStrictEqual({ kind: 'approve' });
  });
});

describe('the catalogue', () => {
  it('lists ERROR, REFUSED and each REFUSED<n> of the table in code order, with what the sale makes of each', () => {
    const { cardHolderNames } = magicCatalogue();
    expect(cardHolderNames).toStrictEqual([
      { value: 'ERROR', outcome: { kind: 'error' } },
      { value: 'REFUSED', outcome: { kind: 'refuse', refusal: { code: '5', description: 'REFUSED' } } },
      ...REFUSALS.map(([code, description]) => ({ value: `REFUSED${code}`, outcome: { kind: 'refuse', refusal: { code, description } } })),
    ]);
    for (const { value, outcome } of cardHolderNames) expect(outcomeForName(value)).toStrictEqual(outcome);
  });

  it('lists the expired card’s refusal, and each postal code then no billing address with their risk factors', () => {
    const { expiredCard, postalCodes } = magicCatalogue();
    expect(expiredCard).toStrictEqual({ code: '33', description: 'CARD EXPIRED' });
    expect(postalCodes).toStrictEqual([...POSTCODES.map(([value, riskFactors]) => ({ value, riskFactors })), { value: undefined, riskFactors: both('not_supplied') }]);
  });
});

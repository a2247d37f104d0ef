/**
 * Decision 0032: in an API body an optional field sent as `null` is absent (contract 3.3); it reaches the
 * vault as if it were not there. Files (fixtures, scenarios, state snapshots) are strict formats and keep
 * refusing a null with fieldIsNull.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixturesProblems } from '../../src/config/fixtures.js';
import { stateSchema } from '../../src/control/state.js';
import { validateScenarios } from '../../src/scenarios/loader.js';
import { WireError } from '../../src/wire/problems.js';
import { createTokenBody, toBillingAddress, toCreateInput, updateBodies } from '../../src/wire/schemas.js';
import { parseBody, toJsonPath } from '../../src/wire/validation.js';

const card = { type: 'card/front', cardHolderName: 'A', cardNumber: '4444333322221111', cardExpiryDate: { month: 5, year: 2035 } };
const address = { address1: 'a', postalCode: 'p', city: 'c', countryCode: 'GB' };

function problemsOf(read: () => unknown): [string, string][] | 'ok' {
  try {
    read();
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, toJsonPath(p.path ?? [])]);
    throw err;
  }
}

describe('an API body', () => {
  it('hands the vault a create input without the fields sent as null', () => {
    const body = {
      paymentInstrument: { ...card, billingAddress: null },
      merchant: { entity: 'default' },
      description: null,
      tokenExpiryDateTime: null,
      namespace: null,
      schemeTransactionReference: null,
    };
    expect(toCreateInput(parseBody(createTokenBody, body))).toStrictEqual({
      entity: 'default',
      card: { number: '4444333322221111', holderName: 'A', expiryDate: { month: 5, year: 2035 } },
    });
  });

  it('hands the vault a billing address without the lines sent as null', () => {
    const parsed = parseBody(updateBodies.billingAddress, { ...address, address2: null, address3: null, state: null });
    expect(toBillingAddress(parsed)).toStrictEqual(address);
  });
});

describe('files keep refusing null', () => {
  const nullToken = {
    paymentInstrument: { ...card, billingAddress: { ...address, address2: null } },
    merchant: { entity: 'default' },
    description: null,
    namespace: null,
  };

  it('in a fixtures token', () => {
    const fixtures = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/default.json', import.meta.url)), 'utf8')) as Record<string, unknown>;
    fixtures.tokens = [nullToken];
    expect(fixturesProblems(fixtures).map((p) => p.jsonPath)).toStrictEqual([
      '$.tokens[0].paymentInstrument.billingAddress.address2',
      '$.tokens[0].description',
      '$.tokens[0].namespace',
    ]);
    expect(fixturesProblems(fixtures)[0]?.message).toBe('address2 must not be null');
  });

  it('in a scenario token', () => {
    expect(problemsOf(() => validateScenarios({ name: 'nulls', tokens: [nullToken] }))).toStrictEqual([
      ['fieldIsNull', '$.tokens[0].paymentInstrument.billingAddress.address2'],
      ['fieldIsNull', '$.tokens[0].description'],
      ['fieldIsNull', '$.tokens[0].namespace'],
    ]);
  });

  it('in a state snapshot’s billing address', () => {
    const state = {
      format: 'token-sim-state',
      version: 1,
      clock: { now: '2030-01-01T00:00:00Z', frozen: true },
      tenantClocks: {},
      counters: { ids: {} },
      tokens: [
        {
          tenant: 'merchant',
          tokenId: '9900000000000000001',
          entity: 'default',
          description: 'Card ending 1111',
          maskedCardNumber: '4444********1111',
          sealedCardNumber: 'sealed',
          cardHolderName: 'A',
          cardExpiryDate: { month: 5, year: 2035 },
          billingAddress: { ...address, state: null },
          network: 'VISA',
          countryCode: 'GB',
          fundingType: 'credit',
          createdAt: '2030-01-01T00:00:00Z',
          expiresAt: '2030-01-08T00:00:00Z',
          lifetimeMs: 604_800_000,
          extension: 'P7D',
        },
      ],
    };
    expect(problemsOf(() => parseBody(stateSchema, state, 'state'))).toStrictEqual([['fieldIsNull', '$.tokens[0].billingAddress.state']]);
  });
});

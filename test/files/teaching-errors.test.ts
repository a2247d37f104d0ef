/**
 * Errors that teach (contract 4.1, issue 23): a number or a boolean where a string is due says to quote it,
 * naming the value as it was read; a misspelt value of a field that takes one of a few says "did you mean"
 * when one is close. Every document the wire format reads gets the same words — scenario files, fixtures,
 * snapshots and API bodies — and keeps its errorName and JSONPath.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixturesProblems } from '../../src/config/fixtures.js';
import { stateSchema } from '../../src/control/state.js';
import { parseScenarioText, validateScenarios } from '../../src/scenarios/loader.js';
import { WireError } from '../../src/wire/problems.js';
import { saleBody } from '../../src/wire/sale-schemas.js';
import { parseBody, toJsonPath } from '../../src/wire/validation.js';

type Problem = [errorName: string, jsonPath: string, message: string];

function problemsOf(read: () => unknown): Problem[] | 'ok' {
  try {
    read();
    return 'ok';
  } catch (err) {
    if (err instanceof WireError) return err.problems.map((p) => [p.errorName, toJsonPath(p.path ?? []), p.message]);
    throw err;
  }
}

const scenarioProblems = (yaml: string) => problemsOf(() => validateScenarios(parseScenarioText(yaml, 'yaml')));
const OPERATIONS = "must be 'createToken' or 'getToken' or 'updateToken' or 'deleteToken' or 'queryTokens' or 'sale' or 'refund' or 'partialRefund' or 'reversal' or 'paymentEvents' or 'paymentQuery' or 'webhook' or 'any'";

describe('a scenario file', () => {
  it('says to quote an unquoted refusal code, as YAML read it', () => {
    const rule = (code: string) => `name: codes\nrules:\n  - when: { operation: sale }\n    then: { outcome: { outcome: refused, refusalCode: ${code} } }\n`;
    expect(scenarioProblems(rule('51'))).toStrictEqual([['fieldMustBeString', '$.rules[0].then.outcome.refusalCode', 'refusalCode must be a string, not the number 51: quote it']]);
    // YAML reads 05 as 5: the message says what was read, so that "05" is what gets quoted.
    expect(scenarioProblems(rule('05'))).toStrictEqual([['fieldMustBeString', '$.rules[0].then.outcome.refusalCode', 'refusalCode must be a string, not the number 5: quote it']]);
    expect(scenarioProblems(rule('"51"'))).toBe('ok');
  });

  it('says to quote a name or an error name that YAML read as a number or a boolean', () => {
    expect(scenarioProblems('name: 2030\nrules:\n  - then: { error: { status: 503, errorName: true } }\n')).toStrictEqual([
      ['fieldMustBeString', '$.name', 'name must be a string, not the number 2030: quote it'],
      ['fieldMustBeString', '$.rules[0].then.error.errorName', 'errorName must be a string, not the boolean true: quote it'],
    ]);
  });

  it('answers a misspelt operation, outcome, fault and risk with the value meant, and only that: a sale-only action is not refused for the typo', () => {
    const yaml = [
      'name: typos',
      'profile: Live',
      'rules:',
      '  - when: { operation: sael }',
      '    then: { outcome: { outcome: refsued }, riskFactors: [{ risk: not_mached, detail: adress }] }',
      '  - then: { fault: noresponse }',
      '',
    ].join('\n');
    expect(scenarioProblems(yaml)).toStrictEqual([
      ['fieldHasInvalidValue', '$.profile', "profile must be 'try' or 'live'; did you mean 'live'?"],
      ['fieldHasInvalidValue', '$.rules[0].when.operation', `operation ${OPERATIONS}; did you mean 'sale'?`],
      ['fieldHasInvalidValue', '$.rules[0].then.outcome.outcome', "outcome must be 'sentForSettlement' or 'refused'; did you mean 'refused'?"],
      ['fieldHasInvalidValue', '$.rules[0].then.riskFactors[0].risk', "risk must be 'not_checked' or 'not_matched' or 'not_supplied'; did you mean 'not_matched'?"],
      ['fieldHasInvalidValue', '$.rules[0].then.riskFactors[0].detail', "detail must be 'address' or 'postcode'; did you mean 'address'?"],
      ['fieldHasInvalidValue', '$.rules[1].then.fault', "fault must be 'connectionReset' or 'noResponse'; did you mean 'noResponse'?"],
    ]);
  });

  it('keeps the message as it was when no value is close', () => {
    expect(scenarioProblems('name: far\nrules:\n  - when: { operation: capture }\n    then: { delayMs: 1 }\n')).toStrictEqual([
      ['fieldHasInvalidValue', '$.rules[0].when.operation', `operation ${OPERATIONS}`],
    ]);
  });
});

describe('a fixtures file', () => {
  const fixtures = () =>
    JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/default.json', import.meta.url)), 'utf8')) as Record<string, unknown> & {
      credentials: Record<string, unknown>[];
      bins: Record<string, unknown>[];
    };

  it('says to quote a number, without repeating a password', () => {
    const f = fixtures();
    f.credentials[0]!.username = 42;
    f.credentials[0]!.password = 1234;
    f.bins[0]!.fundingType = false;
    expect(fixturesProblems(f)).toStrictEqual([
      { jsonPath: '$.credentials[0].username', message: 'username must be a string, not the number 42: quote it' },
      { jsonPath: '$.credentials[0].password', message: 'password must be a string, not a number: quote it' },
      { jsonPath: '$.bins[0].fundingType', message: 'fundingType must be a string, not the boolean false: quote it' },
    ]);
  });
});

describe('a state snapshot', () => {
  const state = (payments: unknown[]) => ({
    format: 'token-sim-state',
    version: 1,
    clock: { now: '2030-01-01T00:00:00Z', frozen: true },
    tenantClocks: {},
    counters: { ids: {}, scenarios: {} },
    tokens: [],
    payments,
  });
  const payment = {
    tenant: 'merchant',
    paymentId: '9900000000000000001',
    transactionReference: 'order-1',
    entity: 'default',
    currency: 'GBP',
    amount: 250,
    createdAt: '2030-01-01T00:00:00Z',
    settlement: 'setled',
    refunded: 0,
    refundRequested: false,
    reversed: false,
    script: {},
    events: [{ seq: 1, type: 'sentForSettlment', at: '2030-01-01T00:00:00Z', amount: 250 }],
    scheduled: [],
    eventCount: 1,
  };

  it('answers misspelt settlement and event types with the value meant, and says to quote a number', () => {
    expect(problemsOf(() => parseBody(stateSchema, state([{ ...payment, transactionReference: 1 }]), 'state'))).toStrictEqual([
      ['fieldMustBeString', '$.payments[0].transactionReference', 'transactionReference must be a string, not the number 1: quote it'],
      ['fieldHasInvalidValue', '$.payments[0].settlement', "settlement must be 'none' or 'pending' or 'settled' or 'failed' or 'cancelled'; did you mean 'settled'?"],
      [
        'fieldHasInvalidValue',
        '$.payments[0].events[0].type',
        "type must be 'sentForSettlement' or 'settled' or 'settlementFailed' or 'cancelled' or 'sentForRefund' or 'refundFailed' or 'refused'; did you mean 'sentForSettlement'?",
      ],
    ]);
  });
});

describe('an API body', () => {
  const sale = (instrument: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
    instruction: { value: { amount: 250, currency: 'GBP' }, narrative: { line1: 'Baker Street Stores' }, paymentInstrument: instrument },
    merchant: { entity: 'default' },
    transactionReference: 'order-1',
    ...overrides,
  });
  const plain = { type: 'card/plain', cardNumber: '4444333322221111', cardHolderName: 'Sherlock Holmes', cardExpiryDate: { month: 5, year: 2035 } };

  it('answers a misspelt instrument type with the one meant', () => {
    expect(problemsOf(() => parseBody(saleBody, sale({ ...plain, type: 'card/tokn' })))).toStrictEqual([
      ['fieldHasInvalidValue', '$.instruction.paymentInstrument.type', "type must be 'card/plain' or 'card/token'; did you mean 'card/token'?"],
    ]);
  });

  it('says to quote a number, and repeats neither a card number nor a security code', () => {
    expect(problemsOf(() => parseBody(saleBody, sale({ ...plain, cardNumber: 4444333322221111, cvc: 123 }, { transactionReference: 7 })))).toStrictEqual([
      ['fieldMustBeString', '$.instruction.paymentInstrument.cardNumber', 'cardNumber must be a string, not a number: quote it'],
      ['fieldMustBeString', '$.instruction.paymentInstrument.cvc', 'cvc must be a string, not a number: quote it'],
      ['fieldMustBeString', '$.transactionReference', 'transactionReference must be a string, not the number 7: quote it'],
    ]);
  });
});

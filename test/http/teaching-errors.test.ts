/**
 * Errors that teach (contract 4.1, issue 23), as the answers carry them: a scenario file sent to /_sim and a
 * sale body sent to the API say to quote an unquoted value and name the value a misspelt one meant, with
 * the errorName and the JSONPath they always had.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sale, saleBody } from '../support/sale.js';
import { handlerOf, testSimulator } from '../support/sim.js';

describe('errors that teach', () => {
  it('answers PUT /_sim/scenarios with the quote hint and the "did you mean" hint, and loads nothing', async () => {
    const sim = testSimulator();
    const yaml = 'name: refusals\nrules:\n  - when: { operation: sael }\n    then: { outcome: { outcome: refused, refusalCode: 51 } }\n';
    const res = await request(handlerOf(sim)).put('/_sim/scenarios').set('Content-Type', 'application/yaml').send(yaml);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errorName: 'bodyDoesNotMatchSchema',
      message: 'The request body does not match the schema',
      validationErrors: [
        {
          errorName: 'fieldHasInvalidValue',
          message:
            "operation must be 'createToken' or 'getToken' or 'updateToken' or 'deleteToken' or 'queryTokens' or 'sale' or 'refund' or 'partialRefund' or 'reversal' or 'paymentEvents' or 'paymentQuery' or 'webhook' or 'any'; did you mean 'sale'?",
          jsonPath: '$.rules[0].when.operation',
        },
        { errorName: 'fieldMustBeString', message: 'refusalCode must be a string, not the number 51: quote it', jsonPath: '$.rules[0].then.outcome.refusalCode' },
      ],
    });
    expect((await request(handlerOf(sim)).get('/_sim/scenarios')).body.scenarios).toEqual([]);
  });

  it('answers a sale with a misspelt instrument type and an unquoted reference, repeating no card number', async () => {
    const body = saleBody({ type: 'card/plian', cardNumber: 4444333322221111 }, { transactionReference: 12 });
    const res = await sale(testSimulator(), body);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([
      { errorName: 'fieldHasInvalidValue', message: "type must be 'card/plain' or 'card/token'; did you mean 'card/plain'?", jsonPath: '$.instruction.paymentInstrument.type' },
      { errorName: 'fieldMustBeString', message: 'transactionReference must be a string, not the number 12: quote it', jsonPath: '$.transactionReference' },
    ]);
  });

  it('repeats no card number given as a number in a sale', async () => {
    const body = saleBody({ type: 'card/plain', cardNumber: 4444333322221111, cardHolderName: 'Sherlock Holmes', cardExpiryDate: { month: 5, year: 2035 } });
    const res = await sale(testSimulator(), body);
    expect(res.status).toBe(400);
    expect(res.body.validationErrors).toEqual([{ errorName: 'fieldMustBeString', message: 'cardNumber must be a string, not a number: quote it', jsonPath: '$.instruction.paymentInstrument.cardNumber' }]);
  });
});

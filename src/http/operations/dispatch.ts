/** An operation of the simulated API by name: the one place a request meets its operation (api.ts calls it). */
import { paymentEvents, paymentQuery, partialRefund, refund, reversal, type PaymentOperationsDeps } from './payments.js';
import { sale, type SaleOperation } from './sale.js';
import { createToken, deleteToken, getToken, queryTokens, updateToken, type TokenOperationsDeps } from './tokens.js';
import type { ApiOperation } from '../../wire/schemas.js';
import type { ApiRequest, ApiResponse } from './types.js';

/** What the operations work with: the token service's, the sale's and its follow-ups'. */
export interface OperationDeps {
  tokens: TokenOperationsDeps;
  sale: SaleOperation;
  payments: PaymentOperationsDeps;
}

export function runOperation(deps: OperationDeps, name: ApiOperation, req: ApiRequest): ApiResponse {
  switch (name) {
    case 'createToken': return createToken(deps.tokens, req);
    case 'getToken': return getToken(deps.tokens, req);
    case 'updateToken': return updateToken(deps.tokens, req);
    case 'deleteToken': return deleteToken(deps.tokens, req);
    case 'queryTokens': return queryTokens(deps.tokens, req);
    case 'sale': return sale(deps.sale, req);
    case 'refund': return refund(deps.payments, req);
    case 'partialRefund': return partialRefund(deps.payments, req);
    case 'reversal': return reversal(deps.payments, req);
    case 'paymentEvents': return paymentEvents(deps.payments, req);
    case 'paymentQuery': return paymentQuery(deps.payments, req);
  }
}

/**
 * Payment queries (contract 4.4, decision 0057): a client that got no answer to a sale asks what happened, by
 * its transactionReference, then follows the payment's `self` link. Reads only: the events that are due are
 * caught up, nothing else changes.
 */
import type { FieldProblem } from '../../wire/problems.js';
import { HttpError } from '../errors.js';
import { paymentQueryJson, paymentQueryListJson } from '../present-payment-queries.js';
import type { PaymentLinkContext } from '../present-payments.js';
import type { PaymentOperationsDeps } from './payments.js';
import type { ApiRequest, ApiResponse } from './types.js';

const PARAM = 'transactionReference';

/**
 * `?transactionReference=` of GET /paymentQueries/payments: given once and not empty; other parameters are
 * ignored, as token queries ignore theirs (the vendor's date-range query is not simulated).
 */
function readReference(text: string): string {
  const values = new URLSearchParams(text).getAll(PARAM);
  let problem: FieldProblem | undefined;
  if (values.length === 0) problem = { errorName: 'fieldIsMissing', message: `${PARAM} is required (queries by date range are not simulated)` };
  else if (values.length > 1) problem = { errorName: 'fieldHasInvalidValue', message: `${PARAM} must be given once` };
  else if (values[0] === '') problem = { errorName: 'fieldIsEmpty', message: `${PARAM} must not be empty` };
  if (problem) throw new HttpError('urlInvalid', 'The query of GET /paymentQueries/payments is not valid', { problems: [problem] });
  return values[0] as string;
}

/** The payment a paymentId names: one of the tenant's refs, else (unreadable, or another tenant's) 404. */
function paymentIdOf(deps: PaymentOperationsDeps, req: ApiRequest): string {
  const ref = deps.refs.decode(req.ref ?? '');
  if (!ref || ref.tenant !== req.tenant) throw new HttpError('paymentIdUnknown', 'The payment does not exist');
  return ref.tokenId;
}

/** GET /paymentQueries/payments?transactionReference= (the tenant's payments, newest first), or /{paymentId}. */
export function paymentQuery(deps: PaymentOperationsDeps, req: ApiRequest): ApiResponse {
  const ctx: PaymentLinkContext = { baseUrl: req.baseUrl, refs: deps.refs };
  const body =
    req.ref === undefined
      ? paymentQueryListJson(ctx, deps.payments.withReference(req.tenant, readReference(req.query)))
      : paymentQueryJson(ctx, deps.payments.get(req.tenant, paymentIdOf(deps, req)));
  return { status: 200, mediaType: deps.media.paymentQueries, body };
}

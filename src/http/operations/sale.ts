/** POST /payments/sales/migrateCardOnFile (v5): parse, resolve a token href, call the sale, present. */
import type { Payments } from '../../domain/payment.js';
import type { Sales, SaleInstrument } from '../../domain/sale.js';
import type { PaymentRefPurpose, RefCodec } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { saleBody, type SaleBody } from '../../wire/sale-schemas.js';
import { toBillingAddress } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import type { MediaTypes } from '../media.js';
import { presentSale } from '../present.js';
import { paymentLinksJson, withLinks } from '../present-payments.js';
import type { ApiOperation } from './types.js';

export interface SaleOperationDeps {
  sales: Sales;
  refs: RefCodec;
  media: MediaTypes;
  payments: Payments;
  paymentRefs: RefCodec<PaymentRefPurpose>;
}

/** The token id behind a `tokens:token` href of this tenant; undefined for anything else. */
export function tokenIdOfHref(refs: RefCodec, href: string, tenant: string): string | undefined {
  const at = href.lastIndexOf('/tokens/');
  if (at === -1) return undefined;
  const ref = refs.decode(href.slice(at + '/tokens/'.length).replace(/[?#].*$/, ''));
  return ref && ref.purpose === 'token' && ref.tenant === tenant ? ref.tokenId : undefined;
}

function instrumentOf(pi: SaleBody['instruction']['paymentInstrument'], refs: RefCodec, tenant: string): SaleInstrument {
  if (pi.type === 'card/token') return { kind: 'token', tokenId: tokenIdOfHref(refs, pi.href, tenant) };
  return {
    kind: 'plain',
    card: {
      number: pi.cardNumber,
      holderName: pi.cardHolderName,
      expiryDate: { month: pi.cardExpiryDate.month, year: pi.cardExpiryDate.year },
      ...(pi.billingAddress && { billingAddress: toBillingAddress(pi.billingAddress) }),
    },
  };
}

export function createSaleOperation(deps: SaleOperationDeps): ApiOperation {
  // Every payment keeps the base URL its sale came in on; one string per base URL, not one per payment.
  const origins = new Map<string, string>();
  const originOf = (baseUrl: string): string => {
    let origin = origins.get(baseUrl);
    if (origin === undefined) {
      if (origins.size >= 64) origins.clear();
      origins.set(baseUrl, (origin = baseUrl));
    }
    return origin;
  };
  return (req) => {
    const body = parseBody(saleBody, parseJsonText(req.body));
    const { amount, currency } = body.instruction.value;
    const result = deps.sales.sale(
      req.tenant,
      { entity: body.merchant.entity, currency, amount, instrument: instrumentOf(body.instruction.paymentInstrument, deps.refs, req.tenant) },
      req.saleOverride,
    );
    // A decided sale is a payment (a scripted ERROR threw above: no payment).
    const payment = deps.payments.record(req.tenant, {
      transactionReference: body.transactionReference,
      entity: body.merchant.entity,
      currency,
      amount,
      approved: result.outcome === 'sentForSettlement',
      ...(result.refusal && { refusal: result.refusal }),
      origin: originOf(req.baseUrl),
      ...(req.paymentScript && { script: req.paymentScript }),
    });
    const links = paymentLinksJson({ baseUrl: req.baseUrl, refs: deps.paymentRefs }, payment);
    return { status: 201, mediaType: deps.media.saleResponse, body: withLinks(JSON.stringify(presentSale(result)), links) };
  };
}

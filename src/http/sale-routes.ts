/** POST /payments/sales/migrateCardOnFile (v5): parse, resolve a token href, call the sale, present. */
import type { Request, RequestHandler, Router } from 'express';
import type { Sales, SaleInstrument } from '../domain/sale.js';
import type { RefCodec } from '../infra/refs.js';
import { jsonBody, readRawBody } from './body.js';
import type { MediaTypes } from './media.js';
import { checkHeaders } from './media.js';
import { presentSale } from './present.js';
import { chain, methodNotAllowed } from './routing.js';
import { saleBody, type SaleBody } from './sale-schemas.js';
import { toBillingAddress } from './schemas.js';
import { saleOverrideOf } from './scenario-actions.js';
import { sendJson } from './send.js';
import { parseBody } from './validation.js';

export interface SaleRoutesDeps {
  sales: Sales;
  refs: RefCodec;
  media: MediaTypes;
  authenticate: RequestHandler;
  tenantOf: (req: Request) => string;
  scenario: (operation: 'sale') => RequestHandler;
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

/** Registers the sale route on the app itself (see registerTokenRoutes). */
export function registerSaleRoutes(router: Router, deps: SaleRoutesDeps): void {
  const headers = checkHeaders({
    contentType: deps.media.saleRequest,
    accept: [deps.media.saleResponse, deps.media.saleRequest],
  });

  router
    .route('/payments/sales/migrateCardOnFile')
    .post(chain(deps.authenticate, headers, readRawBody, deps.scenario('sale'), (req, res) => {
      const body = parseBody(saleBody, jsonBody(req));
      const tenant = deps.tenantOf(req);
      const result = deps.sales.sale(tenant, {
        entity: body.merchant.entity,
        currency: body.instruction.value.currency,
        amount: body.instruction.value.amount,
        instrument: instrumentOf(body.instruction.paymentInstrument, deps.refs, tenant),
      }, saleOverrideOf(res));
      sendJson(res, 201, presentSale(result), deps.media.saleResponse);
    }))
    .all(methodNotAllowed('POST'));

}

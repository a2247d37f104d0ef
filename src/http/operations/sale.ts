/** POST /payments/sales/migrateCardOnFile (v5): parse, resolve a token href, call the sale, present. */
import type { Sales, SaleInstrument } from '../../domain/sale.js';
import type { RefCodec } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { saleBody, type SaleBody } from '../../wire/sale-schemas.js';
import { toBillingAddress } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import type { MediaTypes } from '../media.js';
import { presentSale } from '../present.js';
import type { ApiOperation } from './types.js';

export interface SaleOperationDeps {
  sales: Sales;
  refs: RefCodec;
  media: MediaTypes;
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
  return (req) => {
    const body = parseBody(saleBody, parseJsonText(req.body));
    const result = deps.sales.sale(
      req.tenant,
      {
        entity: body.merchant.entity,
        currency: body.instruction.value.currency,
        amount: body.instruction.value.amount,
        instrument: instrumentOf(body.instruction.paymentInstrument, deps.refs, req.tenant),
      },
      req.saleOverride,
    );
    return { status: 201, mediaType: deps.media.saleResponse, body: JSON.stringify(presentSale(result)) };
  };
}

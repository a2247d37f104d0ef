/** The card-on-file sale: the sandbox's decision (outcome, refusal codes, risk factors) on an injected clock. */
import type { BinTable } from './card.js';
import { DomainError } from './errors.js';
import type { Clock, Ids, Merchants } from './ports.js';
import type { BillingAddress, CardExpiryDate } from './token.js';
import type { Vault } from './vault.js';

export type RiskName = 'not_checked' | 'not_matched' | 'not_supplied';
export type RiskDetail = 'address' | 'postcode';

export interface RiskFactor {
  risk: RiskName;
  detail: RiskDetail;
}

export type { Refusal } from './payment.js';
import type { Refusal } from './payment.js';

/** The refusal descriptions of the sandbox's `REFUSED<n>` card holder names. */
export const REFUSAL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '4': 'HOLD CARD',
  '5': 'REFUSED',
  '8': 'APPROVE AFTER IDENTIFICATION',
  '13': 'INVALID AMOUNT',
  '15': 'INVALID CARD ISSUER',
  '33': 'CARD EXPIRED',
  '34': 'FRAUD SUSPICION',
  '41': 'LOST CARD',
  '43': 'STOLEN CARD, PICK UP',
  '51': 'LIMIT EXCEEDED',
  '55': 'INVALID SECURITY CODE',
  '56': 'UNKNOWN CARD',
  '57': 'ILLEGAL TRANSACTION',
  '62': 'RESTRICTED CARD',
  '63': 'SECURITY RULES VIOLATED',
  '75': 'SECURITY CODE INVALID',
  '76': 'CARD BLOCKED',
  '85': 'REJECTED BY CARD ISSUER',
};

export type NameOutcome = { kind: 'approve' } | { kind: 'refuse'; refusal: Refusal } | { kind: 'error' };

/**
 * What the card holder name asks of the sandbox: `REFUSED` (code 5), `REFUSED<n>` (code n), `ERROR`
 * (a 500), anything else approves. Case and surrounding spaces do not matter.
 */
export function outcomeForName(cardHolderName: string): NameOutcome {
  const name = cardHolderName.trim().toUpperCase();
  if (name === 'ERROR') return { kind: 'error' };
  const refused = /^REFUSED(\d{1,3})?$/.exec(name);
  if (!refused) return { kind: 'approve' };
  const code = refused[1] === undefined ? '5' : String(Number(refused[1]));
  return { kind: 'refuse', refusal: { code, description: REFUSAL_DESCRIPTIONS[code] ?? 'REFUSED' } };
}

const both = (risk: RiskName): RiskFactor[] => [
  { risk, detail: 'address' },
  { risk, detail: 'postcode' },
];

/** The sandbox's risk factors by billing postal code; no billing address counts as `HHHH`. */
export function riskFactorsFor(postalCode: string | undefined): RiskFactor[] {
  switch (postalCode?.trim().toUpperCase() ?? 'HHHH') {
    case 'CCCC':
      return [{ risk: 'not_matched', detail: 'address' }];
    case 'FFFF':
      return [{ risk: 'not_matched', detail: 'postcode' }];
    case 'JJJJ':
      return both('not_matched');
    case 'EEEE':
      return both('not_checked');
    case 'HHHH':
      return both('not_supplied');
    default:
      return [];
  }
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isCardExpired(expiry: CardExpiryDate, now: number): boolean {
  const date = new Date(now);
  const current = date.getUTCFullYear() * 12 + date.getUTCMonth();
  return expiry.year * 12 + (expiry.month - 1) < current;
}

export interface SaleCard {
  number: string;
  holderName: string;
  expiryDate: CardExpiryDate;
  billingAddress?: BillingAddress;
}

export type SaleInstrument = { kind: 'plain'; card: SaleCard } | { kind: 'token'; tokenId: string | undefined };

export interface SaleRequest {
  entity: string;
  currency: string;
  amount: number;
  instrument: SaleInstrument;
}

export interface SaleResult {
  outcome: 'sentForSettlement' | 'refused';
  /** Absent on refusals. */
  authorizationCode?: string;
  refusal?: Refusal;
  schemeReference: string;
  card: {
    number: string;
    expiryDate: CardExpiryDate;
    network: string;
    countryCode: string;
    fundingType: string;
    paymentAccountReference: string;
  };
  riskFactors: RiskFactor[];
}

export interface SalesDeps {
  clock: Clock;
  ids: Ids;
  vault: Vault;
  merchants: Merchants;
  binTable: BinTable;
}

/** A scripted outcome (scenario rules): replaces what the card holder name and postal code would decide. */
export interface SaleOverride {
  outcome?: { outcome: 'sentForSettlement' | 'refused'; refusalCode?: string; refusalDescription?: string };
  riskFactors?: RiskFactor[];
}

export interface Sales {
  sale(tenant: string, request: SaleRequest, override?: SaleOverride): SaleResult;
}

/** The refusal a sale ends with, or undefined when it is approved; throws for the scripted `ERROR`. */
function decideRefusal(card: SaleCard, plain: boolean, now: number, override: SaleOverride['outcome']): Refusal | undefined {
  if (override) {
    if (override.outcome === 'sentForSettlement') return undefined;
    const code = override.refusalCode ?? '5';
    return { code, description: override.refusalDescription ?? REFUSAL_DESCRIPTIONS[code] ?? 'REFUSED' };
  }
  const named = outcomeForName(card.holderName);
  if (named.kind === 'error') throw new DomainError('issuerFailed', 'A scripted error (card holder name ERROR)');
  if (plain && isCardExpired(card.expiryDate, now)) return { code: '33', description: REFUSAL_DESCRIPTIONS['33'] ?? 'CARD EXPIRED' };
  return named.kind === 'refuse' ? named.refusal : undefined;
}

export function createSales(deps: SalesDeps): Sales {
  const { clock, ids, vault, merchants, binTable } = deps;

  /** The card to charge: a plain card as given, or the live token's stored card. */
  function cardOf(tenant: string, instrument: SaleInstrument, now: number): { card: SaleCard; tokenId?: string } {
    if (instrument.kind === 'plain') return { card: instrument.card };
    const token = instrument.tokenId === undefined ? undefined : vault.peek(tenant, instrument.tokenId);
    if (!token) throw new DomainError('saleTokenNotLive', 'href must be the href of a live token of these credentials');
    if (isCardExpired(token.card.expiryDate, now)) {
      throw new DomainError('storedCardExpired', 'The card stored in the token has expired');
    }
    return { card: { ...token.card }, tokenId: token.tokenId };
  }

  return {
    sale(tenant, request, override = {}) {
      const now = clock.now(tenant);
      const entity = merchants.entityFor(tenant, request.entity);
      if (!entity) {
        throw new DomainError('entityNotConfigured', `The merchant entity '${request.entity}' is not configured for these credentials`);
      }
      const { card, tokenId } = cardOf(tenant, request.instrument, now);
      if (!entity.currencies.has(request.currency)) {
        throw new DomainError('currencyNotAccepted', `The currency ${request.currency} is not configured for the merchant entity`);
      }
      const profile = binTable.lookup(card.number);
      if (!entity.networks.has(profile.network)) {
        throw new DomainError('networkNotAccepted', `${profile.network} cards are not accepted by the merchant entity`);
      }
      // The sale is attempted: from here on it is a use of the token, whatever the outcome.
      if (tokenId !== undefined) vault.get(tenant, tokenId);

      const refusal = decideRefusal(card, request.instrument.kind === 'plain', now, override.outcome);

      return {
        outcome: refusal ? 'refused' : 'sentForSettlement',
        ...(refusal ? { refusal } : { authorizationCode: ids.authorizationCode(tenant) }),
        schemeReference: ids.schemeReference(tenant),
        card: {
          number: card.number,
          expiryDate: { ...card.expiryDate },
          ...profile,
          paymentAccountReference: ids.paymentAccountReference(card.number),
        },
        riskFactors: override.riskFactors ?? riskFactorsFor(card.billingAddress?.postalCode),
      };
    },
  };
}

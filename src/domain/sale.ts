/** The card-on-file sale: the sandbox's decision (outcome, refusal codes, risk factors) on an injected clock. */
import type { CardProfile } from './card.js';
import { DomainError } from './errors.js';
import type { CardExpiryDate } from './token.js';
import type { CreateTokenInput, Vault, VaultDeps } from './vault.js';

import { EXPIRED_CARD_CODE, outcomeForName, refusalWith, riskFactorsFor, scriptedRefusal, type RiskFactor, type ScriptedOutcome } from './magic-values.js';
import type { Refusal } from './payment.js';

/** A card is valid through the last day of its expiry month (UTC). */
export function isCardExpired(expiry: CardExpiryDate, now: number): boolean {
  const date = new Date(now);
  const current = date.getUTCFullYear() * 12 + date.getUTCMonth();
  return expiry.year * 12 + (expiry.month - 1) < current;
}

export type SaleCard = CreateTokenInput['card'];

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
  card: CardProfile & { number: string; expiryDate: CardExpiryDate; paymentAccountReference: string };
  riskFactors: RiskFactor[];
}

export type SalesDeps = Pick<VaultDeps, 'clock' | 'ids' | 'merchants' | 'binTable'> & { vault: Vault };

/** A scripted outcome (scenario rules): replaces what the card holder name and postal code would decide. */
export interface SaleOverride {
  outcome?: ScriptedOutcome;
  riskFactors?: RiskFactor[];
}

/** The refusal a sale ends with, or undefined when it is approved; throws for the scripted `ERROR`. */
function decideRefusal(card: SaleCard, plain: boolean, now: number, override: SaleOverride['outcome']): Refusal | undefined {
  if (override) return scriptedRefusal(override);
  const named = outcomeForName(card.holderName);
  if (named.kind === 'error') throw new DomainError('issuerFailed', 'A scripted error (card holder name ERROR)');
  if (plain && isCardExpired(card.expiryDate, now)) return refusalWith(EXPIRED_CARD_CODE);
  return named.kind === 'refuse' ? named.refusal : undefined;
}

/** The card to charge: a plain card as given, or the live token's stored card. */
function cardOf(vault: Vault, tenant: string, instrument: SaleInstrument, now: number): { card: SaleCard; tokenId?: string } {
  if (instrument.kind === 'plain') return { card: instrument.card };
  const token = instrument.tokenId === undefined ? undefined : vault.peek(tenant, instrument.tokenId);
  if (!token) throw new DomainError('saleTokenNotLive', 'href must be the href of a live token of these credentials');
  if (isCardExpired(token.card.expiryDate, now)) {
    throw new DomainError('storedCardExpired', 'The card stored in the token has expired');
  }
  return { card: { ...token.card }, tokenId: token.tokenId };
}

/** A sale: the card is checked against the merchant entity, the token (if any) used, and the outcome decided. */
export function decideSale(deps: SalesDeps, tenant: string, request: SaleRequest, override: SaleOverride = {}): SaleResult {
  const { clock, ids, vault, merchants, binTable } = deps;
  const now = clock.now(tenant);
  const entity = merchants.entityFor(tenant, request.entity);
  if (!entity) {
    throw new DomainError('entityNotConfigured', `The merchant entity '${request.entity}' is not configured for these credentials`);
  }
  const { card, tokenId } = cardOf(vault, tenant, request.instrument, now);
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
}

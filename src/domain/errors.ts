/**
 * The domain's refusals, in the domain's own words. How a client sees each one (status, errorName, which
 * field of its request) is decided at the edges: wire/problems.ts and http/errors.ts.
 */
export type DomainCode =
  /** No live token with that id for the tenant (never created, deleted, expired, or its conflict closed). */
  | 'tokenNotFound'
  /** The merchant entity is not one the tenant's credential may use. */
  | 'entityNotConfigured'
  /** The namespace already holds its limit of live tokens. */
  | 'namespaceFull'
  /** A requested token expiry is not after now. */
  | 'expiryNotInFuture'
  /** A fixed token id (preloaded tokens) is already taken. */
  | 'tokenIdTaken'
  /** The entity does not accept the currency. */
  | 'currencyNotAccepted'
  /** The entity does not accept the card's network. */
  | 'networkNotAccepted'
  /** The token a sale names is not a live token of the tenant. */
  | 'saleTokenNotLive'
  /** The card stored in the token a sale names has expired. */
  | 'storedCardExpired'
  /** The issuer failed (the sandbox's scripted `ERROR` card holder name). */
  | 'issuerFailed'
  /** No payment with that id for the tenant (never made, or cleared by a reset). */
  | 'paymentNotFound'
  /** The payment's state no longer allows the action (a refund after a full refund, a reversal after a refund…). */
  | 'actionNotAllowed'
  /** A partial refund names another currency than the sale's. */
  | 'refundCurrencyMismatch'
  /** A sale's transactionReference was already used by the tenant with that merchant entity (contract 4.4). */
  | 'referenceAlreadyUsed';

export class DomainError extends Error {
  readonly code: DomainCode;

  constructor(code: DomainCode, message: string) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
  }
}

/** The token and its rules: identity of a card, conflicts field by field, expiry and extension. */
import type { CardProfile } from './card.js';
import { addDuration, capAtEnd, type Duration } from './duration.js';

/** A record's type with its fields writable: what a store's `update` hands over (decision 0050). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface CardExpiryDate {
  month: number;
  year: number;
}

export interface BillingAddress {
  address1: string;
  address2?: string;
  address3?: string;
  postalCode: string;
  city: string;
  state?: string;
  countryCode: string;
}

export interface StoredCard extends Readonly<CardProfile> {
  readonly number: string;
  readonly holderName: string;
  readonly expiryDate: CardExpiryDate;
  readonly billingAddress?: BillingAddress;
}

/** The values a token update (PUT) or a conflict resolution writes, by field. */
export interface TokenValues {
  description: string;
  cardHolderName: string;
  cardExpiryDate: CardExpiryDate;
  billingAddress: BillingAddress;
  schemeTransactionReference: string;
}

/** Values submitted in a conflicting create that differ from the stored ones. */
export type ConflictingValues = Partial<Omit<TokenValues, 'description'>>;

export interface PendingConflict {
  values: ConflictingValues;
  expiresAt: number;
}

/** A stored token: read-only, changed only as a TokenDraft inside its store's `update` (decision 0050). */
export interface Token {
  readonly tenant: string;
  readonly tokenId: string;
  readonly entity: string;
  readonly namespace?: string;
  readonly description: string;
  readonly card: StoredCard;
  readonly schemeTransactionReference?: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Initial expiry minus creation time; the half-life rule compares against half of it. */
  readonly lifetimeMs: number;
  /** What a use past the half-life adds: the extension of the profile the token was created under. */
  readonly extension: Duration;
  readonly pendingConflict?: PendingConflict;
  /** Goes up with every change of the stored data (not of the expiry), so views of it can be cached. */
  readonly revision: number;
}

/** What names and indexes a stored token (its tenant, id, card identity): never changed once stored. */
type TokenKeys = 'tenant' | 'tokenId' | 'entity' | 'namespace' | 'createdAt' | 'lifetimeMs' | 'extension';

/** A token as its store's `update` hands it over to be changed: everything but what names and indexes it. */
export type TokenDraft = Mutable<Omit<Token, TokenKeys | 'card'>> &
  Pick<Token, TokenKeys> & { card: Mutable<Omit<StoredCard, 'number'>> & Pick<StoredCard, 'number'> };

/** What a create request says about the card, as the vault compares it with a stored token. */
export type SubmittedCard = ConflictingValues & Pick<TokenValues, 'cardHolderName' | 'cardExpiryDate'>;

/** Values many tokens share, kept per vault (never across simulators): fewer objects for the garbage collector. */
export interface SharedValues {
  /** One frozen object per (month, year). Stored expiry dates are only ever replaced, never changed. */
  expiryDate(month: number, year: number): CardExpiryDate;
  /** `Card ending 1111`, one string per last four digits. */
  defaultDescription(last4: string): string;
}

/** One value per key, made on first use; past 50,000 keys a value is made but no longer kept. */
function sharing<K, V>(make: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      value = make(key);
      if (kept.size < 50_000) kept.set(key, value);
    }
    return value;
  };
}

export function createSharedValues(): SharedValues {
  // The key is year·16 + month (months are 1 to 12), so it gives both back.
  const expiryDate = sharing((key: number) => Object.freeze({ month: key - 16 * Math.floor(key / 16), year: Math.floor(key / 16) }));
  return {
    expiryDate: (month, year) => {
      const key = year * 16 + month;
      // Past the safe integers the key rounds and two months would share it: such a date is not shared.
      return Number.isSafeInteger(key) ? expiryDate(key) : Object.freeze({ month, year });
    },
    defaultDescription: sharing((last4: string) => `Card ending ${last4}`),
  };
}

/** (merchant entity, namespace or none, card number); tokens are looked up per tenant. */
export function cardIdentity(entity: string, namespace: string | undefined, cardNumber: string): string {
  return `${entity}\u0000${namespace ?? ''}\u0000${cardNumber}`;
}

/** (merchant entity, namespace): the group limited to 16 live tokens. */
export function namespaceKey(entity: string, namespace: string): string {
  return `${entity}\u0000${namespace}`;
}

const ADDRESS_FIELDS = ['address1', 'address2', 'address3', 'postalCode', 'city', 'state', 'countryCode'] as const;

export function sameBillingAddress(a: BillingAddress | undefined, b: BillingAddress | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return ADDRESS_FIELDS.every((f) => a[f] === b[f]);
}

/** Each field's rule: whether a submitted value conflicts with the token's (description never does), and how it is written. */
const FIELDS: { [F in keyof TokenValues]: { differs?: (token: Token, value: TokenValues[F]) => boolean; write: (token: TokenDraft, value: TokenValues[F], shared: SharedValues) => void } } = {
  description: { write: (token, value) => void (token.description = value) },
  cardHolderName: { differs: (token, value) => value !== token.card.holderName, write: (token, value) => void (token.card.holderName = value) },
  cardExpiryDate: {
    differs: (token, value) => value.month !== token.card.expiryDate.month || value.year !== token.card.expiryDate.year,
    write: (token, value, shared) => void (token.card.expiryDate = shared.expiryDate(value.month, value.year)),
  },
  billingAddress: { differs: (token, value) => !sameBillingAddress(value, token.card.billingAddress), write: (token, value) => void (token.card.billingAddress = { ...value }) },
  schemeTransactionReference: { differs: (token, value) => value !== token.schemeTransactionReference, write: (token, value) => void (token.schemeTransactionReference = value) },
};

const CONFLICT_FIELDS = ['cardHolderName', 'cardExpiryDate', 'billingAddress', 'schemeTransactionReference'] as const;

/**
 * The submitted values that differ from the stored token, as copies. Billing address and scheme transaction
 * reference count only when the request carries them; description and expiry never conflict.
 */
export function findConflicts(token: Token, submitted: SubmittedCard): ConflictingValues | undefined {
  let found: Record<string, unknown> | undefined;
  for (const field of CONFLICT_FIELDS) {
    const value = submitted[field];
    if (value !== undefined && (FIELDS[field].differs as (t: Token, v: typeof value) => boolean)(token, value)) {
      (found ??= {})[field] = typeof value === 'object' ? { ...value } : value;
    }
  }
  return found;
}

/** Writes one field of the token (a PUT). */
export function writeField<F extends keyof TokenValues>(token: TokenDraft, field: F, value: TokenValues[F], shared: SharedValues): void {
  token.revision++;
  FIELDS[field].write(token, value, shared);
}

/** Writes conflicting values into the token (the `tokens:conflicts` resolution). */
export function applyConflictingValues(token: TokenDraft, values: ConflictingValues, shared: SharedValues): void {
  token.revision++;
  for (const field of CONFLICT_FIELDS) {
    const value = values[field];
    if (value !== undefined) (FIELDS[field].write as (t: TokenDraft, v: typeof value, s: SharedValues) => void)(token, value, shared);
  }
}

/** A token is gone at and after its expiry instant. */
export function isExpired(token: Token, now: number): boolean {
  return now >= token.expiresAt;
}

/** The half-life rule: a use with less than half the lifetime left adds the token's extension (capped at the clock's end). */
export function expiryAfterUse(token: Token, now: number): number {
  const remaining = token.expiresAt - now;
  return remaining < token.lifetimeMs / 2 ? capAtEnd(addDuration(token.expiresAt, token.extension)) : token.expiresAt;
}

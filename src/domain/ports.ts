/** What the domain needs from the outside world, injected so that time and ids are scriptable. */
import type { Duration } from './duration.js';
import type { Payment, PaymentDraft } from './payment.js';
import type { Token, TokenDraft } from './token.js';

export interface Clock {
  /** The tenant's virtual now, in epoch milliseconds (tenants may have clocks of their own). */
  now(tenant: string): number;
}

export interface Ids {
  /** A new token id for the tenant: 19 digits starting with 99. Deterministic under a seed. */
  tokenId(tenant: string): string;
  /** A sale's issuer authorization code: 6 upper-case letters and digits. */
  authorizationCode(tenant: string): string;
  schemeReference(tenant: string): string;
  /** The card's payment account reference: 29 characters, always the same for one card number. */
  paymentAccountReference(cardNumber: string): string;
  /** A new payment id for the tenant: 19 digits starting with 99, like token ids. */
  paymentId(tenant: string): string;
  /** The id of a payment's `seq`-th event, UUID-shaped: a function of the key and its arguments (no stream), the same whenever shown. */
  eventId(tenant: string, paymentId: string, seq: number): string;
}

export interface EntityConfiguration {
  currencies: ReadonlySet<string>;
  networks: ReadonlySet<string>;
}

export interface Merchants {
  /** The entity's configuration when the tenant's credential may use it; undefined otherwise. */
  entityFor(tenant: string, entity: string): EntityConfiguration | undefined;
}

/** Token storage, partitioned by tenant. Indexes are the store's business; rules are the vault's. */
export interface Store {
  get(tenant: string, tokenId: string): Token | undefined;
  /** The token of a card identity: (entity, namespace or none, card number) within the tenant. */
  findByCard(tenant: string, entity: string, namespace: string | undefined, cardNumber: string): Token | undefined;
  /** Token ids currently indexed under a namespace key (expired ones included until removed). */
  namespaceMembers(tenant: string, namespaceKey: string): readonly string[];
  /** The tokens indexed under a namespace, whatever their entity, in storing order (expired ones included until removed). */
  namespaceTokens(tenant: string, namespace: string): readonly Token[];
  insert(token: Token): void;
  /** The only way a stored token changes, so that the store (and a shared store's replica) sees every change (decision 0050); nothing when it is not stored. */
  update(tenant: string, tokenId: string, change: (token: TokenDraft) => void): void;
  remove(tenant: string, tokenId: string): void;
  list(tenant: string): readonly Token[];
  tenants(): readonly string[];
  clear(tenant?: string): void;
  /** Replaces every token at once (a state import). */
  replaceAll(tokens: readonly Token[]): void;
  /** Removes the tenant's tokens expired by `now`, returns how many; cheap when none has (no scan). */
  sweepExpired(tenant: string, now: number): number;
  /** How many tokens the store holds, expired ones included until removed. */
  size(): number;
}

/** A token lifetime profile: how long a new token lives, and what a use after its half-life adds. */
export interface LifetimeProfile {
  readonly lifetime: Duration;
  readonly extension: Duration;
}

/** The profile in force for a tenant: the configured one, or its own scenario set's, else the global set's. Tokens keep theirs. */
export interface Profiles {
  current(tenant: string): LifetimeProfile;
}

/** Payment storage, partitioned by tenant (decision 0029). */
export interface PaymentStore {
  get(tenant: string, paymentId: string): Payment | undefined;
  /** Adds a payment; the store may drop a tenant's oldest payments beyond its limit. */
  put(payment: Payment): void;
  /** Drops a payment (a shared store's replica, when another process dropped it). */
  remove(tenant: string, paymentId: string): void;
  /** The only way a stored payment changes, so that the store sees every change, its schedule included (decision 0050); nothing when it is not stored. */
  update(tenant: string, paymentId: string, change: (payment: PaymentDraft) => void): void;
  /** The tenant's payments with an event scheduled by `now`, each instant given once (later ones may remain; one may have happened). */
  due(tenant: string, now: number): readonly string[];
  /** The tenant's payments, oldest first. */
  list(tenant: string): readonly Payment[];
  /** The tenant's stored payments with this transactionReference, newest first (any merchant entity). */
  byReference(tenant: string, reference: string): readonly Payment[];
  tenants(): readonly string[];
  clear(tenant?: string): void;
  /** Replaces every payment (a state import), or one tenant's. */
  replaceAll(payments: readonly Payment[], tenant?: string): void;
  size(): number;
}

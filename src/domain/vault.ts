/** The vault: create, read, update and delete tokens by the service's rules, on an injected clock. */
import { lastFourDigits, type BinTable } from './card.js';
import { addDuration, capAtEnd } from './duration.js';
import { DomainError } from './errors.js';
import type { Clock, Ids, Merchants, Profiles, Store } from './ports.js';
import {
  applyConflictingValues,
  createSharedValues,
  expiryAfterUse,
  findConflicts,
  isExpired,
  namespaceKey,
  writeField,
  type BillingAddress,
  type CardExpiryDate,
  type SharedValues,
  type Token,
  type TokenValues,
} from './token.js';

export interface VaultPolicy {
  /** How long the `tokens:conflicts` resolution stays open after a 409. */
  readonly conflictWindowMs: number;
  /** Live tokens allowed per (tenant, entity, namespace). */
  readonly namespaceLimit: number;
}

export interface VaultDeps {
  clock: Clock;
  ids: Ids;
  store: Store;
  binTable: BinTable;
  policy: VaultPolicy;
  /** The lifetime profile a new token is created under. */
  profiles: Profiles;
  merchants: Merchants;
}

export interface CreateTokenInput {
  /** A fixed token id (preloaded tokens); drawn from the id source when absent. */
  tokenId?: string;
  entity: string;
  namespace?: string;
  description?: string;
  /** Requested expiry instant (epoch ms); the profile's lifetime applies when absent. */
  expiresAt?: number;
  schemeTransactionReference?: string;
  card: {
    number: string;
    holderName: string;
    expiryDate: CardExpiryDate;
    billingAddress?: BillingAddress;
  };
}

export type CreateOutcome = 'created' | 'existing' | 'conflict';

export interface CreateResult {
  outcome: CreateOutcome;
  token: Token;
}

/** A PUT of one field. */
export type TokenUpdate = { [F in keyof TokenValues]: { field: F; value: TokenValues[F] } }[keyof TokenValues];

/** What a token query asks for: a namespace, a token id, or both (a token must then match both). */
export interface TokenQuery {
  namespace?: string;
  tokenId?: string;
}

function notFound(): DomainError {
  return new DomainError('tokenNotFound', 'The token does not exist, has expired or was deleted');
}

/** A vault's dependencies and the values its tokens share. */
type VaultParts = VaultDeps & { shared: SharedValues };

/** The live token, or undefined; an expired token is dropped from the store on sight. */
function live(store: Store, tenant: string, token: Token | undefined, now: number): Token | undefined {
  if (token === undefined) return undefined;
  if (!isExpired(token, now)) return token;
  store.remove(tenant, token.tokenId);
  return undefined;
}

function requireLive(store: Store, tenant: string, tokenId: string, now: number): Token {
  const token = live(store, tenant, store.get(tenant, tokenId), now);
  if (!token) throw notFound();
  return token;
}

/** A use: the half-life rule may extend the expiry. */
function use(store: Store, token: Token, now: number): Token {
  const expiresAt = expiryAfterUse(token, now);
  if (expiresAt === token.expiresAt) return token;
  store.update(token.tenant, token.tokenId, (draft) => {
    draft.expiresAt = expiresAt;
  });
  return token;
}

function openConflict(token: Token, now: number): Token {
  const conflict = token.pendingConflict;
  if (!conflict || now >= conflict.expiresAt) throw notFound();
  return token;
}

function liveMembers(store: Store, tenant: string, key: string, now: number): number {
  let count = 0;
  for (const id of store.namespaceMembers(tenant, key)) {
    if (live(store, tenant, store.get(tenant, id), now)) count++;
  }
  return count;
}

function newTokenId(parts: VaultParts, tenant: string): string {
  let id = parts.ids.tokenId(tenant);
  while (parts.store.get(tenant, id)) id = parts.ids.tokenId(tenant);
  return id;
}

/** The same card again: the token as it is, or with a conflict opened on the values that differ. */
function createAgain(parts: VaultParts, existing: Token, input: CreateTokenInput, now: number): CreateResult {
  const conflicts = findConflicts(existing, {
    cardHolderName: input.card.holderName,
    cardExpiryDate: input.card.expiryDate,
    ...(input.card.billingAddress && { billingAddress: input.card.billingAddress }),
    ...(input.schemeTransactionReference !== undefined && { schemeTransactionReference: input.schemeTransactionReference }),
  });
  if (!conflicts) return { outcome: 'existing', token: existing };
  parts.store.update(existing.tenant, existing.tokenId, (draft) => {
    draft.pendingConflict = { values: conflicts, expiresAt: capAtEnd(now + parts.policy.conflictWindowMs) };
    draft.revision++;
  });
  return { outcome: 'conflict', token: existing };
}

/** Refuses a new token the namespace has no room for, or whose fixed id is taken. */
function checkRoom(parts: VaultParts, tenant: string, input: CreateTokenInput, now: number): void {
  const { store, policy } = parts;
  if (input.namespace !== undefined) {
    if (liveMembers(store, tenant, namespaceKey(input.entity, input.namespace), now) >= policy.namespaceLimit) {
      throw new DomainError('namespaceFull', `The namespace '${input.namespace}' already holds ${policy.namespaceLimit} tokens`);
    }
  }
  if (input.tokenId !== undefined && store.get(tenant, input.tokenId)) {
    throw new DomainError('tokenIdTaken', `tokenId ${input.tokenId} is already in use`);
  }
}

function newToken(parts: VaultParts, tenant: string, input: CreateTokenInput, now: number): Token {
  const { shared } = parts;
  const profile = parts.profiles.current(tenant);
  // Expiries stop at the end of the clock's range (decision 0021), asked for or not.
  const expiresAt = capAtEnd(input.expiresAt ?? addDuration(now, profile.lifetime));
  const cardProfile = parts.binTable.lookup(input.card.number);
  return {
    tenant,
    tokenId: input.tokenId ?? newTokenId(parts, tenant),
    entity: input.entity,
    ...(input.namespace !== undefined && { namespace: input.namespace }),
    description: input.description ?? shared.defaultDescription(lastFourDigits(input.card.number)),
    card: {
      number: input.card.number,
      holderName: input.card.holderName,
      expiryDate: shared.expiryDate(input.card.expiryDate.month, input.card.expiryDate.year),
      ...(input.card.billingAddress && { billingAddress: { ...input.card.billingAddress } }),
      ...cardProfile,
    },
    ...(input.schemeTransactionReference !== undefined && { schemeTransactionReference: input.schemeTransactionReference }),
    createdAt: now,
    expiresAt,
    lifetimeMs: expiresAt - now,
    extension: profile.extension,
    revision: 0,
  };
}

function create(parts: VaultParts, tenant: string, input: CreateTokenInput): CreateResult {
  const { clock, store } = parts;
  const now = clock.now(tenant);
  if (input.expiresAt !== undefined && input.expiresAt <= now) {
    throw new DomainError('expiryNotInFuture', 'tokenExpiryDateTime must be in the future');
  }
  if (!parts.merchants.entityFor(tenant, input.entity)) {
    throw new DomainError('entityNotConfigured', `The merchant entity '${input.entity}' is not configured for these credentials`);
  }
  const existing = live(store, tenant, store.findByCard(tenant, input.entity, input.namespace, input.card.number), now);
  if (existing) return createAgain(parts, existing, input, now);
  checkRoom(parts, tenant, input, now);
  const token = newToken(parts, tenant, input, now);
  store.insert(token);
  return { outcome: 'created', token };
}

function query(store: Store, tenant: string, { namespace, tokenId }: TokenQuery, now: number): Token[] {
  if (tokenId !== undefined) {
    const token = live(store, tenant, store.get(tenant, tokenId), now);
    return token && (namespace === undefined || token.namespace === namespace) ? [token] : [];
  }
  if (namespace === undefined) return [];
  const found: Token[] = [];
  for (const token of store.namespaceTokens(tenant, namespace)) if (live(store, tenant, token, now)) found.push(token);
  // The store's order is the order of storing; a state import may store older tokens after newer ones.
  return found.sort((a, b) => a.createdAt - b.createdAt);
}

export type Vault = ReturnType<typeof createVault>;

export function createVault(deps: VaultDeps) {
  const parts: VaultParts = { ...deps, shared: createSharedValues() };
  const { clock, store, shared } = parts;
  return {
    create: (tenant: string, input: CreateTokenInput): CreateResult => create(parts, tenant, input),

    /** A use: extends the expiry by the half-life rule. */
    get(tenant: string, tokenId: string): Token {
      const now = clock.now(tenant);
      return use(store, requireLive(store, tenant, tokenId, now), now);
    },

    /** The live token without using it, or undefined. */
    peek: (tenant: string, tokenId: string): Token | undefined => live(store, tenant, store.get(tenant, tokenId), clock.now(tenant)),

    /** The tenant's live tokens that match the query, oldest first, whatever their entity. Not a use (contract 1.5). */
    query: (tenant: string, q: TokenQuery): Token[] => query(store, tenant, q, clock.now(tenant)),

    /** The token while its pending conflict is open (a use). */
    getConflict(tenant: string, tokenId: string): Token {
      const now = clock.now(tenant);
      return use(store, openConflict(requireLive(store, tenant, tokenId, now), now), now);
    },

    update(tenant: string, tokenId: string, { field, value }: TokenUpdate): void {
      const now = clock.now(tenant);
      const token = requireLive(store, tenant, tokenId, now);
      store.update(tenant, tokenId, (draft) => writeField(draft, field, value, shared));
      use(store, token, now);
    },

    resolveConflict(tenant: string, tokenId: string): void {
      const now = clock.now(tenant);
      const token = openConflict(requireLive(store, tenant, tokenId, now), now);
      store.update(tenant, tokenId, (draft) => {
        applyConflictingValues(draft, token.pendingConflict?.values ?? {}, shared);
        delete draft.pendingConflict;
        draft.revision++;
      });
      use(store, token, now);
    },

    delete(tenant: string, tokenId: string): void {
      const now = clock.now(tenant);
      requireLive(store, tenant, tokenId, now);
      store.remove(tenant, tokenId);
    },
  };
}

/** The vault: create, read, update and delete tokens by the service's rules, on an injected clock. */
import { lastFourDigits, type BinTable } from './card.js';
import { addDuration } from './duration.js';
import { capAtEnd } from './time-range.js';
import { DomainError } from './errors.js';
import type { Clock, Ids, Merchants, Profiles, Store } from './ports.js';
import {
  applyConflictingValues,
  createSharedValues,
  expiryAfterUse,
  findConflicts,
  isExpired,
  namespaceKey,
  type BillingAddress,
  type CardExpiryDate,
  type Token,
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

export type TokenUpdate =
  | { field: 'description'; value: string }
  | { field: 'cardHolderName'; value: string }
  | { field: 'cardExpiryDate'; value: CardExpiryDate }
  | { field: 'billingAddress'; value: BillingAddress }
  | { field: 'schemeTransactionReference'; value: string };

export type TokenField = TokenUpdate['field'];

/** What a token query asks for: a namespace, a token id, or both (a token must then match both). */
export interface TokenQuery {
  namespace?: string;
  tokenId?: string;
}

export interface Vault {
  create(tenant: string, input: CreateTokenInput): CreateResult;
  /** A use: extends the expiry by the half-life rule. */
  get(tenant: string, tokenId: string): Token;
  /** The live token without using it, or undefined. */
  peek(tenant: string, tokenId: string): Token | undefined;
  /**
   * The tenant's live tokens that match the query, oldest first (creation order), whatever their merchant
   * entity. Not a use: no expiry moves (contract 1.5).
   */
  query(tenant: string, query: TokenQuery): Token[];
  /** The token while its pending conflict is open (a use). */
  getConflict(tenant: string, tokenId: string): Token;
  update(tenant: string, tokenId: string, update: TokenUpdate): void;
  resolveConflict(tenant: string, tokenId: string): void;
  delete(tenant: string, tokenId: string): void;
}

function notFound(): DomainError {
  return new DomainError('tokenNotFound', 'The token does not exist, has expired or was deleted');
}

export function createVault(deps: VaultDeps): Vault {
  const { clock, ids, store, policy } = deps;
  const shared = createSharedValues();

  /** The live token, or undefined; an expired token is dropped from the store on sight. */
  function live(tenant: string, token: Token | undefined, now: number): Token | undefined {
    if (token === undefined) return undefined;
    if (!isExpired(token, now)) return token;
    store.remove(tenant, token.tokenId);
    return undefined;
  }

  function requireLive(tenant: string, tokenId: string, now: number): Token {
    const token = live(tenant, store.get(tenant, tokenId), now);
    if (!token) throw notFound();
    return token;
  }

  function use(token: Token, now: number): void {
    const expiresAt = expiryAfterUse(token, now);
    if (expiresAt === token.expiresAt) return;
    token.expiresAt = expiresAt;
    store.changed(token);
  }

  function openConflict(token: Token, now: number): Token {
    const conflict = token.pendingConflict;
    if (!conflict || now >= conflict.expiresAt) throw notFound();
    return token;
  }

  function liveMembers(tenant: string, key: string, now: number): number {
    let count = 0;
    for (const id of store.namespaceMembers(tenant, key)) {
      if (live(tenant, store.get(tenant, id), now)) count++;
    }
    return count;
  }

  function newTokenId(tenant: string): string {
    let id = ids.tokenId(tenant);
    while (store.get(tenant, id)) id = ids.tokenId(tenant);
    return id;
  }

  return {
    create(tenant, input) {
      const now = clock.now(tenant);
      if (input.expiresAt !== undefined && input.expiresAt <= now) {
        throw new DomainError('expiryNotInFuture', 'tokenExpiryDateTime must be in the future');
      }
      if (!deps.merchants.entityFor(tenant, input.entity)) {
        throw new DomainError('entityNotConfigured', `The merchant entity '${input.entity}' is not configured for these credentials`);
      }
      const existing = live(tenant, store.findByCard(tenant, input.entity, input.namespace, input.card.number), now);
      if (existing) {
        const conflicts = findConflicts(existing, {
          cardHolderName: input.card.holderName,
          cardExpiryDate: input.card.expiryDate,
          ...(input.card.billingAddress && { billingAddress: input.card.billingAddress }),
          ...(input.schemeTransactionReference !== undefined && { schemeTransactionReference: input.schemeTransactionReference }),
        });
        if (!conflicts) return { outcome: 'existing', token: existing };
        existing.pendingConflict = { values: conflicts, expiresAt: capAtEnd(now + policy.conflictWindowMs) };
        existing.revision++;
        store.changed(existing);
        return { outcome: 'conflict', token: existing };
      }
      if (input.namespace !== undefined) {
        if (liveMembers(tenant, namespaceKey(input.entity, input.namespace), now) >= policy.namespaceLimit) {
          throw new DomainError(
            'namespaceFull',
            `The namespace '${input.namespace}' already holds ${policy.namespaceLimit} tokens`,
          );
        }
      }
      if (input.tokenId !== undefined && store.get(tenant, input.tokenId)) {
        throw new DomainError('tokenIdTaken', `tokenId ${input.tokenId} is already in use`);
      }
      const profile = deps.profiles.current(tenant);
      // Expiries stop at the end of the clock's range (decision 0021), asked for or not.
      const expiresAt = capAtEnd(input.expiresAt ?? addDuration(now, profile.lifetime));
      const cardProfile = deps.binTable.lookup(input.card.number);
      const token: Token = {
        tenant,
        tokenId: input.tokenId ?? newTokenId(tenant),
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
        ...(input.schemeTransactionReference !== undefined && {
          schemeTransactionReference: input.schemeTransactionReference,
        }),
        createdAt: now,
        expiresAt,
        lifetimeMs: expiresAt - now,
        extension: profile.extension,
        revision: 0,
      };
      store.insert(token);
      return { outcome: 'created', token };
    },

    get(tenant, tokenId) {
      const now = clock.now(tenant);
      const token = requireLive(tenant, tokenId, now);
      use(token, now);
      return token;
    },

    peek(tenant, tokenId) {
      return live(tenant, store.get(tenant, tokenId), clock.now(tenant));
    },

    query(tenant, { namespace, tokenId }) {
      const now = clock.now(tenant);
      if (tokenId !== undefined) {
        const token = live(tenant, store.get(tenant, tokenId), now);
        return token && (namespace === undefined || token.namespace === namespace) ? [token] : [];
      }
      if (namespace === undefined) return [];
      const found: Token[] = [];
      for (const token of store.namespaceTokens(tenant, namespace)) if (live(tenant, token, now)) found.push(token);
      // The store's order is the order of storing; a state import may store older tokens after newer ones.
      return found.sort((a, b) => a.createdAt - b.createdAt);
    },

    getConflict(tenant, tokenId) {
      const now = clock.now(tenant);
      const token = openConflict(requireLive(tenant, tokenId, now), now);
      use(token, now);
      return token;
    },

    update(tenant, tokenId, update) {
      const now = clock.now(tenant);
      const token = requireLive(tenant, tokenId, now);
      token.revision++;
      switch (update.field) {
        case 'description':
          token.description = update.value;
          break;
        case 'cardHolderName':
          token.card.holderName = update.value;
          break;
        case 'cardExpiryDate':
          token.card.expiryDate = shared.expiryDate(update.value.month, update.value.year);
          break;
        case 'billingAddress':
          token.card.billingAddress = { ...update.value };
          break;
        case 'schemeTransactionReference':
          token.schemeTransactionReference = update.value;
          break;
      }
      store.changed(token);
      use(token, now);
    },

    resolveConflict(tenant, tokenId) {
      const now = clock.now(tenant);
      const token = openConflict(requireLive(tenant, tokenId, now), now);
      applyConflictingValues(token, token.pendingConflict?.values ?? {}, shared);
      delete token.pendingConflict;
      token.revision++;
      store.changed(token);
      use(token, now);
    },

    delete(tenant, tokenId) {
      const now = clock.now(tenant);
      requireLive(tenant, tokenId, now);
      store.remove(tenant, tokenId);
    },

  };
}

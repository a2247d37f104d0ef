/** In-memory tokens per tenant, indexed by id, card identity and namespace, with an expiry heap (decision 0023). */
import type { Store } from '../domain/ports.js';
import { namespaceKey, type Token } from '../domain/token.js';
import { createExpiryHeap, type ExpiryHeap } from '../infra/expiry-heap.js';

/** The value under `key`, made (by a module-level `make`: nothing allocated per call) and set when missing. */
export function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

export const newMap = <K, V>(): Map<K, V> => new Map<K, V>();
export const newSet = <T>(): Set<T> => new Set<T>();
export const newArray = <T>(): T[] => [];

/** Told of every record a memory store adds, changes or removes (a shared store's replica writes those: decision 0039). */
export type Changed = (tenant: string, id: string) => void;

/** A memory store's records by tenant, then by id, and the calls both stores answer alike. */
export function partitions<T, P extends { byId: Map<string, T> }>(changed: Changed | undefined) {
  const tenants = new Map<string, P>();
  return {
    tenants,
    get: (tenant: string, id: string): T | undefined => tenants.get(tenant)?.byId.get(id),
    list: (tenant: string): T[] => [...(tenants.get(tenant)?.byId.values() ?? [])],
    size(): number {
      let n = 0;
      for (const p of tenants.values()) n += p.byId.size;
      return n;
    },
    /** Drops a tenant's (or every) partition, telling `changed` of each record it held. */
    clear: (tenant?: string): void => {
      if (changed) for (const [name, p] of tenants) if (tenant === undefined || name === tenant) for (const id of p.byId.keys()) changed(name, id);
      if (tenant === undefined) tenants.clear();
      else tenants.delete(tenant);
    },
  };
}

/** Stale heap entries allowed beyond twice the live count before a rebuild (keeps small tenants from churning). */
export const HEAP_SLACK = 64;

interface TenantTokens {
  byId: Map<string, Token>;
  /** Card identity: per namespaceKey group (no namespace: ''), by card number (the token's own string: no key to keep). */
  byCard: Map<string, Map<string, Token>>;
  byNamespace: Map<string, Set<string>>;
  /** By namespace alone, across entities (token queries, decision 0031), in the order stored. */
  byNamespaceName: Map<string, Set<Token>>;
  /** Every stored token under the expiry it had when pushed; stale entries are skipped when popped, and rebuilt away. */
  expiries: ExpiryHeap<Token>;
}

const newTenant = (): TenantTokens => ({ byId: new Map(), byCard: new Map(), byNamespace: new Map(), byNamespaceName: new Map(), expiries: createExpiryHeap() });

export function createMemoryStore(changed?: Changed): Store {
  const { tenants, ...common } = partitions<Token, TenantTokens>(changed);
  const store: Store = {
    ...common,
    findByCard: (tenant, entity, namespace, cardNumber) => tenants.get(tenant)?.byCard.get(namespaceKey(entity, namespace ?? ''))?.get(cardNumber),
    namespaceMembers: (tenant, key) => [...(tenants.get(tenant)?.byNamespace.get(key) ?? [])],
    namespaceTokens: (tenant, namespace) => [...(tenants.get(tenant)?.byNamespaceName.get(namespace) ?? [])],

    insert(token) {
      const p = entryOf(tenants, token.tenant, newTenant);
      // A token stored again under a taken id replaces the old one in every index, not only by id.
      if (p.byId.has(token.tokenId)) store.remove(token.tenant, token.tokenId);
      index(p, token);
      changed?.(token.tenant, token.tokenId);
    },

    update(tenant, tokenId, change) {
      const p = tenants.get(tenant);
      const token = p?.byId.get(tokenId);
      if (!p || !token) return;
      const expiresAt = token.expiresAt;
      change(token);
      // A later expiry is found when the earlier one is popped; an earlier one needs an entry of its own.
      if (token.expiresAt < expiresAt) p.expiries.push(token.expiresAt, token);
      changed?.(tenant, tokenId);
    },

    remove(tenant, tokenId) {
      const p = tenants.get(tenant);
      if (!p || !unindex(p, tokenId)) return;
      changed?.(tenant, tokenId);
    },

    sweepExpired(tenant, now) {
      const p = tenants.get(tenant);
      if (!p) return 0;
      let removed = 0;
      for (let at = p.expiries.peekAt(); at !== undefined && at <= now; at = p.expiries.peekAt()) {
        const token = p.expiries.pop()!;
        if (p.byId.get(token.tokenId) !== token) continue;
        if (token.expiresAt <= now) {
          store.remove(tenant, token.tokenId);
          removed++;
        } else {
          p.expiries.push(token.expiresAt, token);
        }
      }
      return removed;
    },

    tenants: () => [...tenants.keys()],
    replaceAll(tokens) {
      store.clear();
      for (const token of tokens) store.insert(token);
    },
  };
  return store;
}

/** Adds a token (its id free) to every index of its tenant. */
function index(p: TenantTokens, token: Token): void {
  p.byId.set(token.tokenId, token);
  const group = namespaceKey(token.entity, token.namespace ?? '');
  entryOf(p.byCard, group, newMap<string, Token>).set(token.card.number, token);
  if (token.namespace !== undefined) {
    entryOf(p.byNamespace, group, newSet<string>).add(token.tokenId);
    entryOf(p.byNamespaceName, token.namespace, newSet<Token>).add(token);
  }
  p.expiries.push(token.expiresAt, token);
  if (p.expiries.size > 2 * p.byId.size + HEAP_SLACK) compact(p);
}

/** Drops a token from every index of its tenant; false when it is not there. */
function unindex(p: TenantTokens, tokenId: string): boolean {
  const token = p.byId.get(tokenId);
  if (!token) return false;
  p.byId.delete(tokenId);
  const group = namespaceKey(token.entity, token.namespace ?? '');
  const cards = p.byCard.get(group);
  if (cards?.get(token.card.number) === token) cards.delete(token.card.number);
  if (token.namespace !== undefined) {
    removeFrom(p.byNamespace, group, tokenId);
    removeFrom(p.byNamespaceName, token.namespace, token);
  }
  if (p.expiries.size > 2 * p.byId.size + HEAP_SLACK) compact(p);
  return true;
}

/** Removes a member from the set under `key`, and the set once empty. */
export function removeFrom<T>(sets: Map<string, Set<T>>, key: string, member: T): void {
  const set = sets.get(key);
  set?.delete(member);
  if (set?.size === 0) sets.delete(key);
}

/** The heap again from the stored tokens alone, at their current expiries. */
function compact(p: TenantTokens): void {
  p.expiries.rebuild([...p.byId.values()].map((token) => [token.expiresAt, token] as const));
}

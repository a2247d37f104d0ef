/** In-memory token storage with per-tenant indexes by id, card identity and namespace. */
import type { Store } from '../domain/ports.js';
import { namespaceKey, type Token } from '../domain/token.js';

interface TenantTokens {
  byId: Map<string, Token>;
  /** Card identity: per (entity, namespace) group, by card number (the token's own string: no key to keep). */
  byCard: Map<string, Map<string, Token>>;
  byNamespace: Map<string, Set<string>>;
}

const groupOf = (entity: string, namespace: string | undefined): string => `${entity}\u0000${namespace ?? ''}`;

export function createMemoryStore(): Store {
  const tenants = new Map<string, TenantTokens>();

  function partition(tenant: string): TenantTokens {
    let p = tenants.get(tenant);
    if (!p) {
      p = { byId: new Map(), byCard: new Map(), byNamespace: new Map() };
      tenants.set(tenant, p);
    }
    return p;
  }

  const store: Store = {
    get: (tenant, tokenId) => tenants.get(tenant)?.byId.get(tokenId),
    findByCard: (tenant, entity, namespace, cardNumber) => tenants.get(tenant)?.byCard.get(groupOf(entity, namespace))?.get(cardNumber),
    namespaceMembers: (tenant, key) => [...(tenants.get(tenant)?.byNamespace.get(key) ?? [])],

    insert(token) {
      const p = partition(token.tenant);
      p.byId.set(token.tokenId, token);
      const group = groupOf(token.entity, token.namespace);
      let cards = p.byCard.get(group);
      if (!cards) p.byCard.set(group, (cards = new Map<string, Token>()));
      cards.set(token.card.number, token);
      if (token.namespace !== undefined) {
        const key = namespaceKey(token.entity, token.namespace);
        let members = p.byNamespace.get(key);
        if (!members) p.byNamespace.set(key, (members = new Set()));
        members.add(token.tokenId);
      }
    },

    remove(tenant, tokenId) {
      const p = tenants.get(tenant);
      const token = p?.byId.get(tokenId);
      if (!p || !token) return;
      p.byId.delete(tokenId);
      const cards = p.byCard.get(groupOf(token.entity, token.namespace));
      if (cards?.get(token.card.number) === token) cards.delete(token.card.number);
      if (token.namespace !== undefined) {
        const key = namespaceKey(token.entity, token.namespace);
        const members = p.byNamespace.get(key);
        members?.delete(tokenId);
        if (members?.size === 0) p.byNamespace.delete(key);
      }
    },

    list: (tenant) => [...(tenants.get(tenant)?.byId.values() ?? [])],
    tenants: () => [...tenants.keys()],
    clear(tenant) {
      if (tenant === undefined) tenants.clear();
      else tenants.delete(tenant);
    },
    replaceAll(tokens) {
      tenants.clear();
      for (const token of tokens) store.insert(token);
    },
  };
  return store;
}

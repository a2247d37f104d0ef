/** In-memory token storage with per-tenant indexes by id, card identity and namespace. */
import type { Store } from '../domain/ports.js';
import { cardIdentity, namespaceKey, type Token } from '../domain/token.js';

interface TenantTokens {
  byId: Map<string, Token>;
  byIdentity: Map<string, Token>;
  byNamespace: Map<string, Set<string>>;
}

const identityOf = (t: Token): string => cardIdentity(t.entity, t.namespace, t.card.number);

export function createMemoryStore(): Store {
  const tenants = new Map<string, TenantTokens>();

  function partition(tenant: string): TenantTokens {
    let p = tenants.get(tenant);
    if (!p) {
      p = { byId: new Map(), byIdentity: new Map(), byNamespace: new Map() };
      tenants.set(tenant, p);
    }
    return p;
  }

  const store: Store = {
    get: (tenant, tokenId) => tenants.get(tenant)?.byId.get(tokenId),
    findByIdentity: (tenant, identity) => tenants.get(tenant)?.byIdentity.get(identity),
    namespaceMembers: (tenant, key) => [...(tenants.get(tenant)?.byNamespace.get(key) ?? [])],

    insert(token) {
      const p = partition(token.tenant);
      p.byId.set(token.tokenId, token);
      p.byIdentity.set(identityOf(token), token);
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
      if (p.byIdentity.get(identityOf(token)) === token) p.byIdentity.delete(identityOf(token));
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

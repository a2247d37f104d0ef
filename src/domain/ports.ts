/** What the domain needs from the outside world, injected so that time and ids are scriptable. */
import type { Token } from './token.js';

export interface Clock {
  /** The virtual now, in epoch milliseconds. */
  now(): number;
}

export interface Ids {
  /** A new token id for the tenant: 19 digits starting with 99. Deterministic under a seed. */
  tokenId(tenant: string): string;
}

/** Token storage, partitioned by tenant. Indexes are the store's business; rules are the vault's. */
export interface Store {
  get(tenant: string, tokenId: string): Token | undefined;
  findByIdentity(tenant: string, identity: string): Token | undefined;
  /** Token ids currently indexed under a namespace key (expired ones included until removed). */
  namespaceMembers(tenant: string, namespaceKey: string): readonly string[];
  /** Adds a new token and indexes it. */
  insert(token: Token): void;
  remove(tenant: string, tokenId: string): void;
  list(tenant: string): readonly Token[];
  tenants(): readonly string[];
  clear(tenant?: string): void;
}

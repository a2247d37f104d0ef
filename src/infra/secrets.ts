/** One master secret per simulator: derived from --seed when given, random otherwise. */
import { hkdfSync, randomBytes } from 'node:crypto';

export type KeyPurpose = 'ids' | 'refs-encryption' | 'refs-iv' | 'state-encryption' | 'state-iv';

export interface Secrets {
  readonly seeded: boolean;
  key(purpose: KeyPurpose): Buffer;
}

export function createSecrets(seed?: string): Secrets {
  const master = seed === undefined ? randomBytes(32) : Buffer.from(`token-sim:${seed}`, 'utf8');
  const cache = new Map<KeyPurpose, Buffer>();
  return {
    seeded: seed !== undefined,
    key(purpose) {
      let key = cache.get(purpose);
      if (!key) {
        key = Buffer.from(hkdfSync('sha256', master, 'token-sim', purpose, 32));
        cache.set(purpose, key);
      }
      return key;
    },
  };
}

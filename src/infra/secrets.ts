/** One master secret per simulator: derived from --seed when given, random otherwise. */
import { createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

export type KeyPurpose = 'ids' | 'refs-encryption' | 'refs-tag' | 'refs-block' | 'state-encryption' | 'state-iv';

export interface Secrets {
  readonly seeded: boolean;
  key(purpose: KeyPurpose): Buffer;
  /** The same key as a KeyObject: HMACs and ciphers made from it skip importing the key each time. */
  keyObject(purpose: KeyPurpose): KeyObject;
}

export function createSecrets(seed?: string): Secrets {
  const master = seed === undefined ? randomBytes(32) : Buffer.from(`token-sim:${seed}`, 'utf8');
  const cache = new Map<KeyPurpose, Buffer>();
  const objects = new Map<KeyPurpose, KeyObject>();
  const key = (purpose: KeyPurpose): Buffer => {
    let k = cache.get(purpose);
    if (!k) {
      k = Buffer.from(hkdfSync('sha256', master, 'token-sim', purpose, 32));
      cache.set(purpose, k);
    }
    return k;
  };
  return {
    seeded: seed !== undefined,
    key,
    keyObject(purpose) {
      let k = objects.get(purpose);
      if (!k) {
        k = createSecretKey(key(purpose));
        objects.set(purpose, k);
      }
      return k;
    },
  };
}

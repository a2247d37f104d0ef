/**
 * One master secret per simulator: from --seed, else the state key (hrefs and ids survive a restart with
 * --state-file, decision 0027), else random. Snapshots are sealed with keys from the state key if any.
 */
import { createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/** The label of a ref codec's keys: tokens' and payments'. */
export type RefKeyLabel = 'refs' | 'payment-refs';
export type KeyPurpose = 'ids' | `${RefKeyLabel}-${'encryption' | 'tag' | 'block'}` | 'state-encryption' | 'state-iv';

export type Secrets = ReturnType<typeof createSecrets>;

export function createSecrets(seed?: string, stateKey?: string) {
  const stateMaster = stateKey === undefined ? undefined : Buffer.from(hkdfSync('sha256', Buffer.from(stateKey, 'utf8'), 'token-sim', 'state-key', 32));
  const master =
    seed !== undefined
      ? Buffer.from(`token-sim:${seed}`, 'utf8')
      : stateMaster !== undefined
        ? Buffer.from(hkdfSync('sha256', stateMaster, 'token-sim', 'master', 32))
        : randomBytes(32);
  const keys = new Map<KeyPurpose, KeyObject>();
  return {
    /** The key for this purpose, as a KeyObject: HMACs and ciphers made from it skip importing the key each time. */
    keyObject(purpose: KeyPurpose): KeyObject {
      let k = keys.get(purpose);
      if (!k) {
        const from = stateMaster !== undefined && purpose.startsWith('state-') ? stateMaster : master;
        k = createSecretKey(Buffer.from(hkdfSync('sha256', from, 'token-sim', purpose, 32)));
        keys.set(purpose, k);
      }
      return k;
    },
  };
}

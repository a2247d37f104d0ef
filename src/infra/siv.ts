/**
 * Keys and sealing: one master secret per simulator, from --seed, else the state key (decision 0027), else random;
 * snapshots sealed with the state key's. Sealing: AES-256-GCM with an HMAC of the plaintext as its IV (SIV).
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

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

export const IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;

export type Siv = ReturnType<typeof createSiv>;

/** Whether a text is base64url of at most `maxChars` characters (the only texts worth deciphering). */
export const isBase64url = (text: string, maxChars: number): boolean => text.length <= maxChars && /^[A-Za-z0-9_-]+$/.test(text);

/** AES-256-GCM under this IV: iv ‖ ciphertext ‖ tag. */
export function sealGcm(key: KeyObject, iv: Buffer, plain: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = cipher.update(plain);
  cipher.final();
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** The plaintext of iv ‖ ciphertext ‖ tag, or undefined when the tag fails. */
export function openGcm(key: KeyObject, sealed: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - GCM_TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

export function createSiv(encKey: KeyObject, macKey: KeyObject, maxChars: number) {
  return {
    /** base64url(iv ‖ ciphertext ‖ tag) */
    seal(plain: string): string {
      const data = Buffer.from(plain, 'utf8');
      return sealGcm(encKey, createHmac('sha256', macKey).update(data).digest().subarray(0, IV_BYTES), data).toString('base64url');
    },
    /** The plaintext, or undefined when the text was not sealed with these keys (or was changed). */
    open(text: string): string | undefined {
      if (!isBase64url(text, maxChars)) return undefined;
      const raw = Buffer.from(text, 'base64url');
      return raw.length < IV_BYTES + GCM_TAG_BYTES + 1 ? undefined : openGcm(encKey, raw)?.toString('utf8');
    },
  };
}

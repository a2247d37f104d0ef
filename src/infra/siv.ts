/**
 * Deterministic authenticated encryption: AES-256-GCM whose IV is an HMAC of the plaintext (the synthetic
 * IV construction). The same plaintext always seals to the same text; any change fails the tag.
 */
import { createCipheriv, createDecipheriv, createHmac, type KeyObject } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

type Key = Buffer | KeyObject;

export interface Siv {
  /** base64url(iv ‖ ciphertext ‖ tag) */
  seal(plain: string): string;
  /** The plaintext, or undefined when the text was not sealed with these keys (or was changed). */
  open(text: string): string | undefined;
}

export function createSiv(encKey: Key, macKey: Key, maxChars = 4096): Siv {
  return {
    seal(plain) {
      const data = Buffer.from(plain, 'utf8');
      const iv = createHmac('sha256', macKey).update(data).digest().subarray(0, IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = cipher.update(data);
      cipher.final();
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(text) {
      if (text.length > maxChars || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
      const raw = Buffer.from(text, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 1) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

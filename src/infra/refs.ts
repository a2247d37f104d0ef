/**
 * Token references: the opaque path segment of every token href. A ref is AES-256-GCM over
 * (purpose, tokenId, tenant), base64url-encoded. The IV is an HMAC of the plaintext (a synthetic IV), so
 * the same token and purpose always give the same ref — hrefs are stable — while any tampering fails the
 * authentication tag.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import type { Secrets } from './secrets.js';

export const REF_PURPOSES = [
  'token',
  'description',
  'cardHolderName',
  'cardExpiryDate',
  'billingAddress',
  'schemeTransactionReference',
  'conflicts',
] as const;

export type RefPurpose = (typeof REF_PURPOSES)[number];

export interface TokenRef {
  purpose: RefPurpose;
  tenant: string;
  tokenId: string;
}

export interface RefCodec {
  encode(ref: TokenRef): string;
  /** The decrypted ref, or undefined when the text is not one of ours (malformed or tampered). */
  decode(text: string): TokenRef | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_REF_CHARS = 1024;

export function createRefCodec(secrets: Secrets): RefCodec {
  const encKey = secrets.key('refs-encryption');
  const ivKey = secrets.key('refs-iv');
  const cache = new Map<string, string>();

  return {
    encode({ purpose, tenant, tokenId }) {
      const plain = `${REF_PURPOSES.indexOf(purpose)}${tokenId}:${tenant}`;
      const hit = cache.get(plain);
      if (hit) return hit;
      const data = Buffer.from(plain, 'utf8');
      const iv = createHmac('sha256', ivKey).update(data).digest().subarray(0, IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(data), cipher.final()]);
      const ref = Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
      if (cache.size >= 50_000) cache.clear();
      cache.set(plain, ref);
      return ref;
    },

    decode(text) {
      if (text.length > MAX_REF_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
      const raw = Buffer.from(text, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES + 3) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
        const text = plain.toString('utf8');
        const purpose = REF_PURPOSES[Number(text[0])];
        const colon = text.indexOf(':');
        if (purpose === undefined || colon < 2) return undefined;
        return { purpose, tokenId: text.slice(1, colon), tenant: text.slice(colon + 1) };
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Token references: the opaque path segment of every token href, sealed with a synthetic-IV AES-256-GCM
 * (siv.ts) over (purpose, tokenId, tenant). The same token and purpose always give the same ref — hrefs are
 * stable — while any tampering fails the authentication tag.
 */
import type { Secrets } from './secrets.js';
import { createSiv } from './siv.js';

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

const MAX_REF_CHARS = 1024;
const CACHE_LIMIT = 50_000;

export function createRefCodec(secrets: Secrets): RefCodec {
  const siv = createSiv(secrets.key('refs-encryption'), secrets.key('refs-iv'), MAX_REF_CHARS);
  // Every token response carries seven refs: remember them rather than encrypt each time.
  const cache = new Map<string, string>();

  return {
    encode({ purpose, tenant, tokenId }) {
      const plain = `${REF_PURPOSES.indexOf(purpose)}${tokenId}:${tenant}`;
      let ref = cache.get(plain);
      if (ref === undefined) {
        ref = siv.seal(plain);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(plain, ref);
      }
      return ref;
    },

    decode(text) {
      const plain = siv.open(text);
      if (plain === undefined) return undefined;
      const purpose = REF_PURPOSES[Number(plain[0])];
      const colon = plain.indexOf(':');
      if (purpose === undefined || colon < 2) return undefined;
      return { purpose, tokenId: plain.slice(1, colon), tenant: plain.slice(colon + 1) };
    },
  };
}

/** Refs, the path segment of every href (decisions 0003, 0022): compact (our own ids, one AES block) or sealed, told apart by length. */
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual, type Cipher, type Decipher, type KeyObject } from 'node:crypto';
import { BoundedMap } from './bounded-map.js';
import { GCM_TAG_BYTES, IV_BYTES, isBase64url, openGcm, sealGcm, type RefKeyLabel, type Secrets } from './siv.js';

export const REF_PURPOSES = [
  'token',
  'description',
  'cardHolderName',
  'cardExpiryDate',
  'billingAddress',
  'schemeTransactionReference',
  'conflicts',
] as const;

/** Each codec's purposes by its keys' label (at most 8: three bits of a compact block); a payment has one (decision 0029). */
const PURPOSES = { refs: REF_PURPOSES, 'payment-refs': ['payment'] } as const satisfies Record<RefKeyLabel, readonly string[]>;

export type RefPurpose = (typeof REF_PURPOSES)[number];
export type PaymentRefPurpose = (typeof PURPOSES)['payment-refs'][number];

/** A decrypted ref: what it is for, whose it is, and the id it names (a token's, or a payment's). */
export interface TokenRef<P extends string = RefPurpose> {
  purpose: P;
  tenant: string;
  tokenId: string;
}

const MAX_REF_CHARS = 1024;
const CACHE_LIMIT = 10_000;
const TAG_BYTES = 5;
/** Masked purpose index and its tag: 6 bytes, so 8 base64 characters that never straddle a boundary. */
const SUFFIX_BYTES = 1 + TAG_BYTES;
const SUFFIX_CHARS = (SUFFIX_BYTES / 3) * 4;

/** The simulator's own ids: `99`, then 17 digits, split into 8 (27 bits) and 9 (30 bits). */
const COMPACT_ID = /^99[0-9]{17}$/;
const BLOCK = 16;
const COMPACT_CHARS = 22;
/** A compact block's marker (bits 0-3) and tenant tag (bits 64-127; decision 0022). */
const MARKER = 0b1011;
const TAG_OFFSET = 8;
const TENANT_TAG_BYTES = 8;

const purposeTagOf = (mac: Buffer, p: number): Buffer => mac.subarray(IV_BYTES + p * TAG_BYTES, IV_BYTES + (p + 1) * TAG_BYTES);

export interface RefCodecOptions<L extends RefKeyLabel> {
  /** The codec's keys and purposes ('refs': a token's). */
  keyLabel?: L;
  /** The tenant tag of compact refs (8 bytes; an HMAC of the tenant name by default). Tests pass a weak one. */
  tenantTag?: (tenant: string) => Buffer;
}

export const createRefCodec = <L extends RefKeyLabel = 'refs'>(secrets: Secrets, tenants: Iterable<string> = [], options: RefCodecOptions<L> = {}) =>
  new RefCodec<(typeof PURPOSES)[L][number]>(secrets, tenants, options);

export class RefCodec<P extends string = RefPurpose> {
  private readonly purposes: readonly P[];
  private readonly maskByte: number;
  private readonly encKey: KeyObject;
  private readonly macKey: KeyObject;
  // ECB carries no state between blocks: one cipher and one decipher serve every call (whole blocks, no final()).
  private readonly blockCipher: Cipher;
  private readonly blockDecipher: Decipher;
  private readonly tagOfTenant: (tenant: string) => Buffer;
  // A tag maps back to one tenant: one whose tag is taken gets null (sealed refs).
  private readonly tags = new Map<string, Buffer | null>();
  private readonly tenantsByTag = new Map<string, string>();
  /** The plain blocks of compactRefs, filled anew on each call. */
  private readonly blocks: Buffer;
  // Sealed refs (rare) and decoded refs (clients follow the same hrefs again and again) are kept, bounded.
  private readonly encoded = new BoundedMap<string, string[]>(CACHE_LIMIT);
  private last: { key: string; refs: string[] } = { key: '', refs: [] };
  private readonly decoded = new BoundedMap<string, TokenRef<P>>(CACHE_LIMIT);

  constructor(secrets: Secrets, tenants: Iterable<string>, options: RefCodecOptions<RefKeyLabel>) {
    const label = options.keyLabel ?? 'refs';
    this.purposes = PURPOSES[label] as readonly string[] as readonly P[];
    this.maskByte = IV_BYTES + this.purposes.length * TAG_BYTES;
    this.encKey = secrets.keyObject(`${label}-encryption`);
    const macKey = (this.macKey = secrets.keyObject(`${label}-tag`));
    const blockKey = secrets.keyObject(`${label}-block`);
    this.blockCipher = createCipheriv('aes-256-ecb', blockKey, null).setAutoPadding(false);
    this.blockDecipher = createDecipheriv('aes-256-ecb', blockKey, null).setAutoPadding(false);
    this.tagOfTenant =
      options.tenantTag ?? ((tenant: string): Buffer => createHmac('sha256', macKey).update(`tenant\0${tenant}`).digest().subarray(0, TENANT_TAG_BYTES));
    this.blocks = Buffer.alloc(this.purposes.length * BLOCK);
    for (const tenant of tenants) this.tagOf(tenant);
  }

  private tagOf(tenant: string): Buffer | null {
    let tag = this.tags.get(tenant);
    if (tag === undefined) {
      const candidate = Buffer.from(this.tagOfTenant(tenant).subarray(0, TENANT_TAG_BYTES));
      const key = candidate.toString('latin1');
      tag = candidate.length === TENANT_TAG_BYTES && !this.tenantsByTag.has(key) ? candidate : null;
      if (tag) this.tenantsByTag.set(key, tenant);
      this.tags.set(tenant, tag);
    }
    return tag;
  }

  private compactRefs(tokenId: string, tag: Buffer): string[] {
    const { blocks, purposes } = this;
    const high = Number(tokenId.slice(2, 10));
    const low = Number(tokenId.slice(10));
    for (let p = 0; p < purposes.length; p++) {
      const o = p * BLOCK;
      blocks.writeUInt32BE(((MARKER << 28) | (p << 25) | (high >>> 2)) >>> 0, o);
      blocks.writeUInt32BE((((high & 0b11) << 30) | low) >>> 0, o + 4);
      tag.copy(blocks, o + TAG_OFFSET);
    }
    const enciphered = this.blockCipher.update(blocks);
    return purposes.map((_, p) => enciphered.toString('base64url', p * BLOCK, (p + 1) * BLOCK));
  }

  private openCompact(raw: Buffer): TokenRef<P> | undefined {
    const block = this.blockDecipher.update(raw);
    const first = block.readUInt32BE(0);
    const second = block.readUInt32BE(4);
    const purpose = this.purposes[(first >>> 25) & 0b111];
    const high = ((first & 0x1ff_ffff) << 2) | (second >>> 30);
    const low = second & 0x3fff_ffff;
    if (first >>> 28 !== MARKER || purpose === undefined || high > 99_999_999 || low > 999_999_999) return undefined;
    const tenant = this.tenantsByTag.get(block.toString('latin1', TAG_OFFSET, TAG_OFFSET + TENANT_TAG_BYTES));
    if (tenant === undefined) return undefined;
    return Object.freeze({ purpose, tenant, tokenId: `99${String(high).padStart(8, '0')}${String(low).padStart(9, '0')}` });
  }

  private macOf(plain: Buffer): Buffer {
    return createHmac('sha512', this.macKey).update(plain).digest();
  }

  /** The refs of every purpose of a token, in the codec's purpose order (REF_PURPOSES for tokens). */
  encodeAll(tenant: string, tokenId: string): readonly string[] {
    const key = `${tokenId}:${tenant}`;
    // Compact refs cost one AES call, cheaper than a cache that only feeds the garbage collector; one answer
    // asks for the same token's a few times (body, links, Location), so the last token's are kept.
    if (key === this.last.key) return this.last.refs;
    const tag = COMPACT_ID.test(tokenId) ? this.tagOf(tenant) : null;
    if (tag) {
      this.last = { key, refs: this.compactRefs(tokenId, tag) };
      return this.last.refs;
    }
    return this.encoded.get(key) ?? this.encoded.remember(key, this.sealedRefs(key));
  }

  private sealedRefs(key: string): string[] {
    // NUL padding to a multiple of 3 bytes: every ref shares the capability's base64 text and appends a suffix.
    const bytes = Buffer.byteLength(key);
    const plain = Buffer.alloc(bytes + ((3 - ((bytes + IV_BYTES + GCM_TAG_BYTES) % 3)) % 3));
    plain.write(key, 'utf8');
    const mac = this.macOf(plain);
    const head = sealGcm(this.encKey, mac.subarray(0, IV_BYTES), plain).toString('base64url');
    const suffixes = Buffer.alloc(this.purposes.length * SUFFIX_BYTES);
    for (let p = 0; p < this.purposes.length; p++) {
      suffixes[p * SUFFIX_BYTES] = p ^ (mac[this.maskByte] ?? 0);
      purposeTagOf(mac, p).copy(suffixes, p * SUFFIX_BYTES + 1);
    }
    const tails = suffixes.toString('base64url');
    return this.purposes.map((_, p) => head + tails.slice(p * SUFFIX_CHARS, (p + 1) * SUFFIX_CHARS));
  }

  private open(text: string): TokenRef<P> | undefined {
    if (!isBase64url(text, MAX_REF_CHARS)) return undefined;
    const raw = Buffer.from(text, 'base64url');
    // Only the canonical spelling: base64 leaves spare bits in the last character that decoding ignores.
    if (raw.toString('base64url') !== text) return undefined;
    if (text.length === COMPACT_CHARS) return this.openCompact(raw);
    if (raw.length < IV_BYTES + GCM_TAG_BYTES + 3 + SUFFIX_BYTES) return undefined;
    const plain = openGcm(this.encKey, raw.subarray(0, raw.length - SUFFIX_BYTES));
    if (!plain) return undefined;
    const mac = this.macOf(plain);
    const suffix = raw.subarray(raw.length - SUFFIX_BYTES);
    const p = (suffix[0] ?? 0) ^ (mac[this.maskByte] ?? 0);
    const purpose = this.purposes[p];
    if (purpose === undefined || !timingSafeEqual(suffix.subarray(1), purposeTagOf(mac, p))) return undefined;
    const decodedText = plain.toString('utf8').replace(/\0+$/, '');
    const colon = decodedText.indexOf(':');
    if (colon < 1) return undefined;
    return Object.freeze({ purpose, tokenId: decodedText.slice(0, colon), tenant: decodedText.slice(colon + 1) });
  }

  encode({ purpose, tenant, tokenId }: TokenRef<P>): string {
    return this.encodeAll(tenant, tokenId)[this.purposes.indexOf(purpose)] ?? '';
  }

  /** The decrypted ref, or undefined when the text is not one of ours (malformed or tampered). */
  decode(text: string): TokenRef<P> | undefined {
    const known = this.decoded.get(text);
    if (known) return known;
    const ref = this.open(text);
    return ref && this.decoded.remember(text, ref);
  }
}

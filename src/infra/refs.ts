/**
 * Token references: the opaque path segment of every token href. Two forms, told apart by length:
 *
 * - Compact (the simulator's own token ids, `99` and 17 digits): one AES-256 block per ref — a 4-bit marker,
 *   the purpose, the id's 17 digits and a keyed 64-bit tag of the whole tenant name, enciphered as a
 *   pseudo-random permutation (encode-then-encipher). All seven refs of a token come from one AES-ECB call
 *   over seven blocks; a changed ref deciphers to noise that fails the marker, id and tenant-tag checks
 *   (about n·2^-68 with n tenants). No two tenants of a codec share a tag: a tenant whose tag another already
 *   holds (odds about n²·2^-65) gets sealed refs instead, so tenants never share a ref space (decision 0022).
 * - Sealed (any other token id, e.g. a fixture's "ABC123DEF456GHJ"): one HMAC-SHA-512 of (tokenId, tenant)
 *   gives the synthetic IV of its AES-256-GCM sealing plus seven 5-byte purpose tags; a ref is the sealed
 *   capability (which holds the whole tenant name), the masked purpose and that purpose's tag.
 *
 * Both are deterministic (hrefs are stable, and survive a restart with the same seed), distinct per
 * purpose, opaque, and authenticated.
 */
import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual, type Cipher, type Decipher, type KeyObject } from 'node:crypto';
import type { RefKeyLabel, Secrets } from './secrets.js';
import { GCM_TAG_BYTES, IV_BYTES, isBase64url, openGcm, sealGcm } from './siv.js';

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

/**
 * The purpose of a payment's ref: one ref names the payment, and each link's path names the action (the
 * refund, partial refund, reversal and events links of a payment end in the same ref: decision 0029).
 */
export const PAYMENT_REF_PURPOSES = ['payment'] as const;

export type PaymentRefPurpose = (typeof PAYMENT_REF_PURPOSES)[number];

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
/** A compact block: bits 0-3 the marker, 4-6 the purpose, 7-63 the id's digits, 64-127 the tenant tag. */
const MARKER = 0b1011;
const TAG_OFFSET = 8;
const TENANT_TAG_BYTES = 8;

const purposeTagOf = (mac: Buffer, p: number): Buffer => mac.subarray(IV_BYTES + p * TAG_BYTES, IV_BYTES + (p + 1) * TAG_BYTES);

export interface RefCodecOptions<P extends string = RefPurpose> {
  /**
   * The purposes of the codec's refs (at most 8), in order; REF_PURPOSES by default. Payments have a codec of
   * their own with their own purposes and keys (`keyLabel`), so a token ref never opens as a payment's.
   */
  purposes?: readonly P[];
  /** The prefix of the codec's key names ('refs' by default). */
  keyLabel?: RefKeyLabel;
  /**
   * The tenant tag of compact refs (8 bytes); by default the first 8 bytes of an HMAC-SHA-256 of the whole
   * tenant name. Tests pass a weak one to exercise tenants whose tags collide.
   */
  tenantTag?: (tenant: string) => Buffer;
}

export const createRefCodec = <P extends string = RefPurpose>(secrets: Secrets, tenants: Iterable<string> = [], options: RefCodecOptions<P> = {}): RefCodec<P> =>
  new RefCodec(secrets, tenants, options);

export class RefCodec<P extends string = RefPurpose> {
  private readonly purposes: readonly P[];
  private readonly maskByte: number;
  private readonly encKey: KeyObject;
  private readonly macKey: KeyObject;
  // ECB carries no state from block to block, so one cipher and one decipher serve every call as long
  // as only whole blocks go in (and final() is never called).
  private readonly blockCipher: Cipher;
  private readonly blockDecipher: Decipher;
  private readonly tagOfTenant: (tenant: string) => Buffer;
  // Each tenant's tag, computed once (configured tenants up front, others when first seen) and held, so the
  // hot path derives nothing. A tag maps back to exactly one tenant: a tenant whose tag is taken gets no
  // tag (null) and sealed refs, which carry its whole name.
  private readonly tags = new Map<string, Buffer | null>();
  private readonly tenantsByTag = new Map<string, string>();
  /** The plain blocks of compactRefs, filled anew on each call: no allocation for them. */
  private readonly blocks: Buffer;
  // Sealed refs (rare: fixed ids) are remembered; decoded refs too, since clients follow the same hrefs
  // again and again (both bounded).
  private readonly encoded = new Map<string, string[]>();
  private last: { key: string; refs: string[] } = { key: '', refs: [] };
  private readonly decoded = new Map<string, TokenRef<P>>();

  constructor(secrets: Secrets, tenants: Iterable<string>, options: RefCodecOptions<P>) {
    this.purposes = options.purposes ?? (REF_PURPOSES as unknown as readonly P[]);
    if (this.purposes.length > 8) throw new RangeError('a ref codec takes at most 8 purposes');
    this.maskByte = IV_BYTES + this.purposes.length * TAG_BYTES;
    const label = options.keyLabel ?? 'refs';
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
    // Compact refs cost one AES call: computing them again is cheaper than keeping them (a cache of every
    // new token's refs only feeds the garbage collector). One answer asks for the same token's refs a few
    // times (body, links, Location), so the last token's are kept.
    if (key === this.last.key) return this.last.refs;
    const tag = COMPACT_ID.test(tokenId) ? this.tagOf(tenant) : null;
    if (tag) {
      this.last = { key, refs: this.compactRefs(tokenId, tag) };
      return this.last.refs;
    }
    let refs = this.encoded.get(key);
    if (!refs) {
      refs = this.sealedRefs(key);
      if (this.encoded.size >= CACHE_LIMIT) this.encoded.clear();
      this.encoded.set(key, refs);
    }
    return refs;
  }

  private sealedRefs(key: string): string[] {
    // NUL padding makes the capability a multiple of 3 bytes, so its base64 text is shared by all seven
    // refs and each ref only appends its own suffix.
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
    let ref = this.decoded.get(text);
    if (!ref) {
      ref = this.open(text);
      if (!ref) return undefined;
      if (this.decoded.size >= CACHE_LIMIT) this.decoded.clear();
      this.decoded.set(text, ref);
    }
    return ref;
  }
}

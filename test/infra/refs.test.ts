import { describe, expect, it } from '@jest/globals';
import { createRefCodec, REF_PURPOSES } from '../../src/infra/refs.js';
import { createSecrets } from '../../src/infra/secrets.js';

const ref = { purpose: 'token', tenant: 'merchant', tokenId: '9912345678901234567' } as const;

describe('token refs', () => {
  it('round-trips every purpose, tenant and token id', () => {
    const codec = createRefCodec(createSecrets());
    for (const purpose of REF_PURPOSES) {
      const r = { purpose, tenant: 'ü-tenant with spaces', tokenId: '9900000000000000042' };
      expect(codec.decode(codec.encode(r))).toEqual(r);
    }
  });

  it('is URL-safe, opaque and distinct per purpose', () => {
    const codec = createRefCodec(createSecrets());
    const refs = REF_PURPOSES.map((purpose) => codec.encode({ ...ref, purpose }));
    for (const r of refs) {
      expect(r).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(r).not.toContain(ref.tokenId);
      expect(Buffer.from(r, 'base64url').toString('latin1')).not.toContain('merchant');
    }
    expect(new Set(refs).size).toBe(REF_PURPOSES.length);
  });

  it('is the same for the same seed and different for another seed', () => {
    const a = createRefCodec(createSecrets('abc')).encode(ref);
    expect(createRefCodec(createSecrets('abc')).encode(ref)).toBe(a);
    expect(createRefCodec(createSecrets('abd')).encode(ref)).not.toBe(a);
    expect(createRefCodec(createSecrets('abd')).decode(a)).toBeUndefined();
  });

  it('rejects a ref with any single character changed', () => {
    const codec = createRefCodec(createSecrets('abc'));
    const good = codec.encode(ref);
    for (let i = 0; i < good.length; i++) {
      const swapped = good[i] === 'A' ? 'B' : 'A';
      expect(codec.decode(good.slice(0, i) + swapped + good.slice(i + 1))).toBeUndefined();
    }
  });

  it.each(['', 'network', 'abc$', 'x'.repeat(5000), 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'])('rejects %p', (text) => {
    expect(createRefCodec(createSecrets()).decode(text)).toBeUndefined();
  });

  it('uses the compact 22-character form for the simulator’s own 19-digit ids, and the sealed form for others', () => {
    const codec = createRefCodec(createSecrets('abc'), ['merchant']);
    const compact = codec.encode(ref);
    const sealed = codec.encode({ ...ref, tokenId: 'ABC123DEF456GHJ' });
    expect(compact).toHaveLength(22);
    expect(sealed.length).toBeGreaterThan(22);
    expect(codec.decode(sealed)).toEqual({ ...ref, tokenId: 'ABC123DEF456GHJ' });
    for (const good of [compact, sealed]) {
      for (let i = 0; i < good.length; i++) {
        const swapped = good[i] === 'A' ? 'B' : 'A';
        expect(codec.decode(good.slice(0, i) + swapped + good.slice(i + 1))).toBeUndefined();
      }
    }
  });

  it('decodes a compact ref of a configured tenant in a new codec with the same seed, not of an unknown one', () => {
    const text = createRefCodec(createSecrets('abc'), ['merchant']).encode(ref);
    expect(createRefCodec(createSecrets('abc'), ['merchant']).decode(text)).toEqual(ref);
    expect(createRefCodec(createSecrets('abc'), ['someone-else']).decode(text)).toBeUndefined();
  });
});

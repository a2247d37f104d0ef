import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createRefCodec, REF_PURPOSES } from '../../src/infra/refs.js';
import { createSecrets } from '../../src/infra/siv.js';

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

  it.each(['9900000000000000000', '9999999999999999999', '9950881463919463944'])('round-trips the compact form at the id %s', (tokenId) => {
    const codec = createRefCodec(createSecrets('abc'), ['merchant']);
    for (const purpose of REF_PURPOSES) {
      const text = codec.encode({ purpose, tenant: 'merchant', tokenId });
      expect(text).toHaveLength(22);
      expect(codec.decode(text)).toEqual({ purpose, tenant: 'merchant', tokenId });
    }
  });

  it('uses the sealed form for 19-digit ids that are not the simulator’s own', () => {
    const codec = createRefCodec(createSecrets('abc'), ['merchant']);
    const r = { purpose: 'cardHolderName', tenant: 'merchant', tokenId: '1234567890123456789' } as const;
    expect(codec.encode(r).length).toBeGreaterThan(22);
    expect(codec.decode(codec.encode(r))).toEqual(r);
  });
});

describe('token refs bind the whole tenant name', () => {
  it('keeps the users svc-23175 and svc-50258 apart under the seed "tenants"', () => {
    const codec = createRefCodec(createSecrets('tenants'), ['svc-23175', 'svc-50258']);
    const a = codec.encode({ purpose: 'token', tenant: 'svc-23175', tokenId: '9900000000000000001' });
    const b = codec.encode({ purpose: 'token', tenant: 'svc-50258', tokenId: '9900000000000000001' });
    expect(a).not.toBe(b);
    expect(codec.decode(a)?.tenant).toBe('svc-23175');
    expect(codec.decode(b)?.tenant).toBe('svc-50258');
  });

  it('never lets refs of 100,000 random usernames under one seed collide', () => {
    const random = randomBytes(100_000 * 12);
    const users = new Set<string>();
    for (let i = 0; users.size < 100_000; i++) {
      const at = (i * 12) % random.length;
      users.add(`u-${random.toString('base64url', at, at + 4 + (i % 9))}${i >= 100_000 ? `-${i}` : ''}`);
    }
    const codec = createRefCodec(createSecrets('tenants'), users);
    // A second codec with the same seed and users, as after a restart, reads every ref the first issued.
    const restarted = createRefCodec(createSecrets('tenants'), [...users].reverse());
    const seen = new Map<string, string>();
    const problems: string[] = [];
    for (const tenant of users) {
      const text = codec.encode({ purpose: 'token', tenant, tokenId: '9900000000000000001' });
      const other = seen.get(text);
      if (other !== undefined) problems.push(`${tenant} and ${other} share the ref ${text}`);
      seen.set(text, tenant);
      const back = restarted.decode(text);
      if (text.length !== 22 || back?.tenant !== tenant) problems.push(`the ref ${text} of ${tenant} decodes as ${back?.tenant ?? 'nothing'}`);
    }
    expect(problems).toEqual([]);
    expect(seen.size).toBe(100_000);
  });

  it('gives sealed refs to a tenant whose tag another tenant holds, so the two never share a ref space', () => {
    // Every tenant tag the same: the first configured tenant keeps compact refs, the others are sealed.
    const codec = createRefCodec(createSecrets('abc'), ['alice', 'bob'], { tenantTag: () => Buffer.alloc(8) });
    const tokenId = '9900000000000000007';
    const ofAlice = codec.encode({ purpose: 'token', tenant: 'alice', tokenId });
    const ofBob = codec.encode({ purpose: 'token', tenant: 'bob', tokenId });
    const ofCarol = codec.encode({ purpose: 'description', tenant: 'carol', tokenId });
    expect(ofAlice).toHaveLength(22);
    expect(ofBob.length).toBeGreaterThan(22);
    expect(codec.decode(ofAlice)).toEqual({ purpose: 'token', tenant: 'alice', tokenId });
    expect(codec.decode(ofBob)).toEqual({ purpose: 'token', tenant: 'bob', tokenId });
    expect(codec.decode(ofCarol)).toEqual({ purpose: 'description', tenant: 'carol', tokenId });
  });
});

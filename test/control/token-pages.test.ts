import { describe, expect, it } from '@jest/globals';
import { tokenPage } from '../../src/control/token-pages.js';
import type { Token } from '../../src/domain/token.js';

// Only the key fields matter to paging.
const token = (createdAt: number, tenant: string, tokenId: string): Token => ({ createdAt, tenant, tokenId }) as Token;
const ids = (tokens: readonly Token[]): string[] => tokens.map((t) => `${t.tenant}/${t.tokenId}`);

// 25 tokens in a scrambled order: 5 instants, 5 tenants per instant, ids out of order too.
const TOKENS = Array.from({ length: 25 }, (_, i) => {
  const n = (i * 7) % 25;
  return token(1000 * Math.floor(n / 5), `t${4 - (n % 5)}`, `ID${n}`);
});
const ORDERED = [...TOKENS].sort((a, b) => a.createdAt - b.createdAt || (a.tenant < b.tenant ? -1 : 1));

describe('token pages', () => {
  it('without a limit gives every token, by creation time then tenant, and says none remain', () => {
    const page = tokenPage(TOKENS);
    expect(ids(page.tokens)).toEqual(ids(ORDERED));
    expect(page.more).toBe(false);
  });

  it('pages of any size, each after the last of the one before, neither skip nor repeat a token', () => {
    for (const limit of [1, 3, 4, 24, 25]) {
      const seen: Token[] = [];
      let after: Token | undefined;
      for (;;) {
        const page = tokenPage(TOKENS, after, limit);
        expect(page.tokens.length).toBeLessThanOrEqual(limit);
        seen.push(...page.tokens);
        if (!page.more) break;
        after = page.tokens.at(-1);
      }
      expect(ids(seen)).toEqual(ids(ORDERED));
    }
  });

  it('orders tokens of one instant and tenant by id', () => {
    const page = tokenPage([token(5, 'a', 'B'), token(5, 'a', 'A'), token(5, 'a', 'C')], undefined, 2);
    expect(ids(page.tokens)).toEqual(['a/A', 'a/B']);
    expect(page.more).toBe(true);
  });
});

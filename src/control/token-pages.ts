/**
 * Pages of live tokens by creation time, tenant, token id, after the previous page's last token: one pass and a
 * heap of the page's size (no sort of them all); deletions between pages neither skip nor repeat a token.
 */
import type { Token } from '../domain/token.js';

/** Where a page starts: after the token with this key. */
export interface TokenPosition {
  createdAt: number;
  tenant: string;
  tokenId: string;
}

export const positionOf = (t: Token): TokenPosition => ({ createdAt: t.createdAt, tenant: t.tenant, tokenId: t.tokenId });

function compare(a: TokenPosition, b: TokenPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.tenant !== b.tenant) return a.tenant < b.tenant ? -1 : 1;
  return a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : 0;
}

/** A max-heap of at most `size` tokens: the `size` smallest seen so far. */
class SmallestK {
  private readonly items: Token[] = [];
  constructor(private readonly size: number) {}
  offer(t: Token): void {
    const items = this.items;
    if (items.length < this.size) {
      items.push(t);
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (compare(items[parent] as Token, items[i] as Token) >= 0) break;
        [items[parent], items[i]] = [items[i] as Token, items[parent] as Token];
        i = parent;
      }
      return;
    }
    if (this.size === 0 || compare(t, items[0] as Token) >= 0) return;
    items[0] = t;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < items.length && compare(items[l] as Token, items[top] as Token) > 0) top = l;
      if (r < items.length && compare(items[r] as Token, items[top] as Token) > 0) top = r;
      if (top === i) break;
      [items[top], items[i]] = [items[i] as Token, items[top] as Token];
      i = top;
    }
  }
  sorted(): Token[] {
    return [...this.items].sort(compare);
  }
}

/** The first `limit` tokens after `after` (from the start when undefined), in order, and whether more remain. */
export function tokenPage(tokens: Iterable<Token>, after: TokenPosition | undefined, limit: number): { tokens: Token[]; more: boolean } {
  // One more than the page, to know whether another page follows.
  const heap = new SmallestK(limit + 1);
  for (const t of tokens) if (after === undefined || compare(t, after) > 0) heap.offer(t);
  const sorted = heap.sorted();
  return { tokens: sorted.slice(0, limit), more: sorted.length > limit };
}

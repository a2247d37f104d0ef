/**
 * Pages of live tokens by creation time, tenant, token id, after the previous page's last token: one pass that
 * keeps at most twice the page's size (no sort of them all); deletions between pages neither skip nor repeat a token.
 */
import type { Token } from '../domain/token.js';

/** Where a page starts: after the token with this key. */
export type TokenPosition = Pick<Token, 'createdAt' | 'tenant' | 'tokenId'>;

function compare(a: TokenPosition, b: TokenPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  if (a.tenant !== b.tenant) return a.tenant < b.tenant ? -1 : 1;
  return a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : 0;
}

/** The first `limit` tokens (all without one) after `after` (from the start when undefined), in order, and whether more remain. */
export function tokenPage(tokens: Iterable<Token>, after?: TokenPosition, limit = Number.POSITIVE_INFINITY): { tokens: Token[]; more: boolean } {
  // One more than the page, to know whether another page follows; cut back to it whenever twice as many are held.
  const keep = limit + 1;
  const held: Token[] = [];
  let last: Token | undefined; // the last kept at the latest cut: no later token can enter the page
  for (const t of tokens) {
    if ((after !== undefined && compare(t, after) <= 0) || (last !== undefined && compare(t, last) >= 0)) continue;
    held.push(t);
    if (held.length < 2 * keep) continue;
    held.sort(compare).length = keep;
    last = held[limit];
  }
  held.sort(compare);
  return { tokens: held.slice(0, limit), more: held.length > limit };
}

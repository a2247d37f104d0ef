/** Just enough Markdown reading for the documentation tests: fenced blocks, headings and their anchors, links. */

export interface FencedBlock {
  /** The info string after the opening fence (`sh`, `text`, `js`…); empty when there is none. */
  lang: string;
  /** The text between the fences, with its final newline. */
  body: string;
  /** The Markdown between the previous block (or the start) and this one. */
  before: string;
}

const FENCE = /^```(\S*)\n([\s\S]*?)^```$/gm;

export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let last = 0;
  for (const m of markdown.matchAll(FENCE)) {
    blocks.push({ lang: m[1] ?? '', body: m[2] ?? '', before: markdown.slice(last, m.index) });
    last = m.index + m[0].length;
  }
  return blocks;
}

/** The Markdown without its fenced blocks (a `# comment` in a shell block is not a heading). */
export function withoutFencedBlocks(markdown: string): string {
  return markdown.replace(FENCE, '');
}

/** The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFencedBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of the inline links `[text](target)` outside fenced blocks and code spans. */
export function linkTargets(markdown: string): string[] {
  const prose = withoutFencedBlocks(markdown).replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

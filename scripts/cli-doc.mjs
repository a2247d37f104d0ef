// `node scripts/cli-doc.mjs` (after `npm run build`): writes the options table of docs/cli.md from the option
// declarations (src/cli/option-table.ts, decision 0048), between its two marker comments.
import { readFileSync, writeFileSync } from 'node:fs';
import { optionRows } from '../dist/cli/option-table.js';

const page = new URL('../docs/cli.md', import.meta.url);
const START = '<!-- options table: generated from src/cli/option-table.ts by scripts/cli-doc.mjs -->';
const END = '<!-- end of the options table -->';
const text = readFileSync(page, 'utf8');
const from = text.indexOf(START);
const to = text.indexOf(END);
if (from === -1 || to < from) throw new Error(`docs/cli.md has no ${START} … ${END} block`);
writeFileSync(page, `${text.slice(0, from + START.length)}\n${optionRows().join('\n')}\n${text.slice(to)}`);

// Writes the Jest recipe of docs/test-runners.md ("## The whole recipe"), exactly as the page shows it, into a
// fresh project: jest.config.js and tsconfig.json from the recipe's section, and every `ts` block of the page
// whose first line names its file (`// test/tokens.test.ts`). Prints the arguments of the recipe's
// `npm install` line, one per line, with token-sim's tarball in place of the page's ../token-sim/….tgz.
// Usage: node recipe.mjs <page> <project dir> <tarball>
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [page, dir, tarball] = process.argv.slice(2);
const text = readFileSync(page, 'utf8');
const start = text.indexOf('\n## The whole recipe');
if (start === -1) throw new Error(`${page} has no "## The whole recipe" section`);
const end = text.indexOf('\n## ', start + 4);
const recipe = text.slice(start, end === -1 ? undefined : end);
const blocks = (markdown) => [...markdown.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], body: m[2], at: m.index, markdown }));

const write = (file, body) => {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), body);
};
// A block the prose introduces by its file name: "`tsconfig.json`:".
for (const block of blocks(recipe)) {
  const file = /`([\w.-]+\.(?:js|json))`:\s*$/.exec(recipe.slice(0, block.at).trimEnd())?.[1];
  if (file) write(file, block.body);
}
const sources = blocks(text).filter((b) => b.lang === 'ts' && /^\/\/ [\w./-]+\.ts$/.test(b.body.split('\n')[0]));
for (const block of sources) write(block.body.split('\n')[0].slice(3), block.body);
for (const file of ['jest.config.js', 'tsconfig.json', 'test/tokens.test.ts', 'test/support/token-sim.ts']) readFileSync(join(dir, file));

const install = blocks(recipe)
  .filter((b) => b.lang === 'sh')
  .flatMap((b) => b.body.split('\n'))
  .find((line) => line.startsWith('npm install '));
if (!install) throw new Error('the recipe has no npm install line');
const args = install.replace(/#.*$/, '').trim().split(/\s+/).slice(2);
const local = args.findIndex((a) => /^\.\.\/token-sim\/token-sim-[\d.]+\.tgz$/.test(a));
if (local === -1) throw new Error(`the recipe installs no ../token-sim/token-sim-<version>.tgz: ${install}`);
args[local] = tarball;
process.stdout.write(`${args.join('\n')}\n`);

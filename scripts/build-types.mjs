// The published declarations (decision 0047), built after `tsc -p tsconfig.build.json` has written every
// module's declarations to dist/ and scripts/build-cjs.mjs the CommonJS bundles:
// - rollup with rollup-plugin-dts rolls each entry point's declarations (scripts/entries.mjs: dist/<source>.d.ts)
//   up into one file of its own, with only the types that entry reaches;
// - each file must import nothing (no package, not even node:*, no other file, no triple-slash reference) and
//   compile alone with `strict`, `skipLibCheck: false`, the es2022 library and no @types: a consumer's
//   `tsc` reads every line of it (decision 0019);
// - it is written to dist/<name>.d.ts for `import` and dist/cjs/<name>.d.ts for `require` (the same text,
//   read as CommonJS there), and tsc's declarations of the modules behind the entry points are removed.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';
import { ENTRIES } from './entries.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `node scripts/build-types.mjs [dist]`: another output directory (tsc's --outDir) for trial builds.
const dist = resolve(process.argv[2] ?? join(root, 'dist'));

for (const { source } of ENTRIES) {
  if (!existsSync(join(dist, `${source}.d.ts`))) throw new Error(`dist/${source}.d.ts is missing: run tsc -p tsconfig.build.json first`);
}
if (!existsSync(join(dist, 'cjs'))) throw new Error('dist/cjs is missing: run scripts/build-cjs.mjs first');

/** What a declaration file takes from outside itself: module specifiers and triple-slash references. */
function importsOf(text) {
  const file = ts.createSourceFile('entry.d.ts', text, ts.ScriptTarget.Latest, true);
  const found = [
    ...file.referencedFiles.map((r) => `/// <reference path="${r.fileName}" />`),
    ...file.typeReferenceDirectives.map((r) => `/// <reference types="${r.fileName}" />`),
    ...file.libReferenceDirectives.map((r) => `/// <reference lib="${r.fileName}" />`),
  ];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) found.push(node.moduleReference.expression.getText(file));
    else if (ts.isImportTypeNode(node)) found.push(node.argument.getText(file));
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) found.push(`declare module '${node.name.text}'`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The text without the comments that no declaration owns: the modules' own headers (about the source, not the
 * API), which tsc keeps and a roll-up leaves between declarations. A declaration's doc comment touches it.
 */
function withoutDetachedComments(text) {
  const file = ts.createSourceFile('entry.d.ts', text, ts.ScriptTarget.Latest, true);
  const cuts = [];
  for (const statement of [...file.statements, file.endOfFileToken]) {
    const start = statement.getStart(file);
    for (const c of ts.getLeadingCommentRanges(text, statement.pos) ?? []) {
      if (/\n[ \t]*\n/.test(text.slice(c.end, start).split(/\/[*/]/)[0] ?? '')) cuts.push(c);
    }
  }
  let out = text;
  for (const c of cuts.reverse()) out = out.slice(0, c.pos) + out.slice(c.end).replace(/^[ \t]*\n/, '');
  return out.replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '');
}

/**
 * One entry point's declarations as one file: packages stay imports (refused below), every file of dist/ is
 * inlined, even when dist/ sits in a node_modules folder (a trial build; respectExternal).
 */
async function rollUp({ name: entry, source }) {
  const bundle = await rollup({
    input: join(dist, `${source}.d.ts`),
    plugins: [dts({ respectExternal: true, tsconfig: join(root, 'tsconfig.build.json') })],
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    onwarn: (warning) => process.stderr.write(`build-types: ${entry}.d.ts: ${warning.message}\n`),
  });
  const { output } = await bundle.generate({ format: 'es' });
  await bundle.close();
  const text = withoutDetachedComments(output[0].code);
  const imports = importsOf(text);
  if (imports.length > 0) {
    throw new Error(`the published declarations must import nothing: give the type a shape of its own in src/ (decision 0047), but:\n  ${imports.map((what) => `${entry}.d.ts imports ${what}`).join('\n  ')}`);
  }
  return text;
}

const bundles = [];
for (const entry of ENTRIES) bundles.push(await rollUp(entry));

/** Every .d.ts below a directory. */
const declarationsIn = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.d.ts'))
    .map((d) => join(d.parentPath ?? d.path, d.name));
for (const file of declarationsIn(dist)) rmSync(file);
const written = [];
ENTRIES.forEach(({ name }, i) => {
  for (const file of [join(dist, `${name}.d.ts`), join(dist, 'cjs', `${name}.d.ts`)]) {
    writeFileSync(file, bundles[i]);
    written.push(file);
  }
});

// As a consumer's project reads them: no @types, no DOM, strict, every declaration checked.
const program = ts.createProgram(written, {
  noEmit: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: false,
  types: [],
  lib: ['lib.es2022.d.ts'],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
});
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  throw new Error(`the published declarations do not compile on their own:\n${ts.formatDiagnostics(diagnostics, host)}`);
}

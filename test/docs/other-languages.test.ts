/**
 * docs/other-languages.md and its examples (examples/python, java, go, dotnet). The Java, Go and .NET examples
 * cannot run here (no Maven Central, Go module proxy or NuGet, no Docker engine: decision 0055), so this checks
 * what would make them rot, against what the simulator really has, read from src/: every request they make is a
 * path and method of the OpenAPI document (GET /_sim/openapi.json) with query parameters it lists, every media
 * type is one the document names, every TOKEN_SIM_* variable they set is one the CLI reads, with a value it
 * takes. The Python example is held to the same (test/examples/python.process.test.ts runs it). The page shows
 * the examples' own lines and links every file of them.
 */
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnvironment } from '../../src/cli/option-sources.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { fencedBlocks, linkTargets } from '../support/markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGE = 'docs/other-languages.md';
const page = readFileSync(join(root, PAGE), 'utf8');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** Every file under a folder, as paths from the repository's root. */
function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    return statSync(join(root, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

const LANGUAGES = ['python', 'java', 'go', 'dotnet'] as const;
const files = Object.fromEntries(LANGUAGES.map((language) => [language, filesUnder(`examples/${language}`)])) as Record<(typeof LANGUAGES)[number], string[]>;
/** The source files of an example (not its build file). */
const sources = (language: (typeof LANGUAGES)[number]): string[] => files[language].filter((f) => /\.(py|java|go|cs)$/.test(f));
const CONTAINERS = ['java', 'go', 'dotnet'] as const;

const doc = openApiDocument({ vendor: 'service', version: '0.0.0' }) as {
  paths: Record<string, Record<string, { parameters?: { name: string }[] } | { name: string }[]>>;
};

/** The operation of the document that serves `method` on a concrete path (`/tokens/abc` matches `/tokens/{tokenRef}`). */
function operationOf(method: string, path: string): { parameters: string[] } | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const operation = item[method.toLowerCase()] as { parameters?: { name: string }[] } | undefined;
    if (!pattern.test(path) || operation === undefined) continue;
    const shared = (item.parameters as { name: string }[] | undefined) ?? [];
    return { parameters: [...shared, ...(operation.parameters ?? [])].map((p) => p.name) };
  }
  return undefined;
}

/** Every media type the document names for a request or an answer. */
function documentedMediaTypes(node: unknown, found = new Set<string>()): Set<string> {
  if (node === null || typeof node !== 'object') return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'content' && value !== null && typeof value === 'object') Object.keys(value).forEach((type) => found.add(type));
    documentedMediaTypes(value, found);
  }
  return found;
}

/** The requests a source makes: `("POST", "/tokens"`, `HttpMethod.Post, "/tokens"`, `self.url + "/_sim/health"`, and health waits. */
function requestsIn(source: string): { method: string; target: string }[] {
  const calls = [
    ...[...source.matchAll(/"(GET|PUT|POST|DELETE)",\s*(?:[\w.]+\s*\+\s*)?"(\/[^"]*)"/g)].map((m) => ({ method: m[1]!, target: m[2]! })),
    ...[...source.matchAll(/HttpMethod\.(Get|Put|Post|Delete),\s*"(\/[^"]*)"/g)].map((m) => ({ method: m[1]!.toUpperCase(), target: m[2]! })),
    ...[...source.matchAll(/(?:forHttp|ForHTTP|ForPath)\("(\/[^"]*)"\)/g)].map((m) => ({ method: 'GET', target: m[1]! })),
  ];
  return calls;
}

/** Every string literal of a source that is a path of the simulator (not a JSON pointer such as `/_links/…`). */
const pathLiterals = (source: string): string[] => [...source.matchAll(/"(\/(?:_sim|tokens|payments)(?:[/?][^"]*)?)"/g)].map((m) => m[1]!);

/** The TOKEN_SIM_* variables a container example sets, with their values (a literal, or a constant of the file). */
function variablesIn(source: string): Record<string, string> {
  const constant = (name: string): string | undefined => new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(source)?.[1];
  const found: Record<string, string> = {};
  for (const m of source.matchAll(/"(TOKEN_SIM_\w+)"\s*[,:]\s*(?:"([^"]*)"|(\w+))/g)) {
    const value = m[2] ?? constant(m[3]!);
    if (value === undefined) throw new Error(`no value found for ${m[1]!} (${m[3]!})`);
    found[m[1]!] = value;
  }
  return found;
}

describe.each(LANGUAGES)('the %s example', (language) => {
  const text = sources(language).map(read).join('\n');
  const requests = requestsIn(text);

  it('does the four things: creates a token, sells with it, advances the clock, loads a scenario', () => {
    const made = requests.map((r) => `${r.method} ${r.target}`);
    expect(made).toEqual(expect.arrayContaining(['POST /tokens', 'POST /payments/sales/migrateCardOnFile', 'POST /_sim/clock/advance', 'PUT /_sim/scenarios']));
    // Each test starts from a clean simulator, its clock frozen at a known instant.
    expect(made).toEqual(expect.arrayContaining(['POST /_sim/reset', 'DELETE /_sim/scenarios', 'PUT /_sim/clock']));
    for (const link of ['tokens:token', 'payments:events']) expect(text).toContain(link);
  });

  it('makes only requests the OpenAPI document has, with query parameters it lists', () => {
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const { method, target } of requests) {
      const [path = '', query] = target.split('?');
      const operation = operationOf(method, path);
      expect([method, target, operation !== undefined]).toEqual([method, target, true]);
      const names = [...new URLSearchParams(query ?? '').keys()];
      expect(names.filter((name) => !operation!.parameters.includes(name))).toEqual([]);
    }
  });

  it('names no path of the simulator outside such a request', () => {
    const requested = new Set(requests.map((r) => r.target));
    expect(pathLiterals(text).filter((path) => !requested.has(path))).toEqual([]);
  });

  it('uses only media types the OpenAPI document names', () => {
    const types = [...new Set([...text.matchAll(/"(application\/[\w.+-]+)"/g)].map((m) => m[1]!))];
    expect(types.length).toBeGreaterThanOrEqual(3);
    const documented = documentedMediaTypes(doc);
    expect(types.filter((type) => !documented.has(type))).toEqual([]);
  });
});

describe.each(CONTAINERS)('the %s example, in a container', (language) => {
  const text = sources(language).map(read).join('\n');

  it('runs the image token-sim on its port 8080, ready once GET /_sim/health answers', () => {
    expect(text).toMatch(/"token-sim"/);
    expect(text).toMatch(/\b8080\b/);
    expect(requestsIn(text)).toContainEqual({ method: 'GET', target: '/_sim/health' });
  });

  it('sets only TOKEN_SIM_* variables the CLI reads, with values it takes: a frozen clock at a known instant', () => {
    const variables = variablesIn(text);
    expect(Object.keys(variables).sort()).toEqual(['TOKEN_SIM_FROZEN', 'TOKEN_SIM_NOW', 'TOKEN_SIM_SEED']);
    const { values, problems, warnings } = readEnvironment(variables);
    expect({ problems, warnings }).toEqual({ problems: [], warnings: [] });
    expect(Object.keys(values).sort()).toEqual(['frozen', 'now', 'seed']);
  });
});

describe('the build files of the examples pin every library to one release', () => {
  it('pom.xml: a version for every BOM, dependency without a BOM, and plug-in', () => {
    const pom = read('examples/java/pom.xml');
    expect(pom).toMatch(/<artifactId>testcontainers-bom<\/artifactId>\s*<version>1\.20\.\d+<\/version>/);
    for (const block of pom.match(/<(?:dependency|plugin)>[\s\S]*?<\/(?:dependency|plugin)>/g) ?? []) {
      const managed = /<groupId>(org\.testcontainers|org\.junit\.jupiter)<\/groupId>/.test(block) && !/-bom</.test(block);
      if (!managed) expect([block, /<version>\d+\.\d+\.\d+<\/version>/.test(block)]).toEqual([block, true]);
    }
  });

  it('go.mod: testcontainers-go v0.34', () => {
    expect(read('examples/go/go.mod')).toMatch(/^require github\.com\/testcontainers\/testcontainers-go v0\.34\.\d+$/m);
  });

  it('the .csproj: a version for every package, Testcontainers 4', () => {
    const csproj = read('examples/dotnet/TokenSim.Example.csproj');
    const references = [...csproj.matchAll(/<PackageReference Include="([^"]+)" Version="([^"]+)" \/>/g)].map((m) => [m[1], m[2]]);
    expect(references.length).toBe((csproj.match(/<PackageReference /g) ?? []).length);
    expect(references).toContainEqual(['Testcontainers', expect.stringMatching(/^4\.\d+\.\d+$/)]);
    for (const [name, version] of references) expect([name, version]).toEqual([name, expect.stringMatching(/^\d+\.\d+\.\d+$/)]);
  });
});

describe(PAGE, () => {
  const blocks = fencedBlocks(page).filter((b) => !['sh', 'text'].includes(b.lang));
  const allFiles = LANGUAGES.flatMap((language) => files[language]);

  it.each(blocks.map((b, i) => [i + 1, b.body.split('\n')[0]!.trim(), b] as const))('code block %i (%s) is lines of the file its lead-in names', (_i, _first, block) => {
    const named = [...block.before.matchAll(/`([\w.-]+\.(?:py|java|go|cs))`/g)].map((m) => m[1]!).pop();
    const file = allFiles.find((f) => basename(f) === named);
    expect([named, file !== undefined]).toEqual([named, true]);
    expect(`\n${read(file!)}`).toContain(`\n${block.body}`);
  });

  it('shows each example', () => {
    const shown = new Set(blocks.map((b) => b.lang));
    expect([...shown].sort()).toEqual(['csharp', 'go', 'java', 'python']);
  });

  it('links every file of the examples, and only files that exist', () => {
    const targets = linkTargets(page).filter((t) => !/^[a-z]+:/.test(t));
    for (const target of targets) expect([target, existsSync(join(root, 'docs', target.split('#')[0]!))]).toEqual([target, true]);
    const linked = new Set(targets.map((t) => relative(root, join(root, 'docs', t))));
    expect(allFiles.filter((f) => !linked.has(f))).toEqual([]);
  });

  it('is listed in the docs index', () => {
    expect(linkTargets(read('docs/README.md'))).toContain('other-languages.md');
  });
});

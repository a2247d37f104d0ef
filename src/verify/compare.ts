/**
 * One recorded answer held against the simulator's (contract 4.5, decision 0059): status, errorName, the jsonPaths
 * of validation errors, Content-Type and Location, the set of body fields with their JSON types, and the link
 * relations. Values are not compared (ids, refs, timestamps and scheme references differ by nature); hrefs are
 * learnt instead (links.ts), so that later requests reach the simulator's own resources.
 */
import type { Difference, DifferenceKind } from './types.js';

/** One answer: its status, headers (lower-case names) and body (parsed JSON, or undefined). */
export interface Answer {
  status: number;
  headers: ReadonlyMap<string, string>;
  json: unknown;
}

type Found = Omit<Difference, 'index' | 'method' | 'path'>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The body's fields as JSONPaths (array items as `[]`) with their JSON types, and each `_links` object's relations. */
function shapeOf(value: unknown): { fields: Map<string, Set<string>>; links: Map<string, Set<string>> } {
  const fields = new Map<string, Set<string>>();
  const links = new Map<string, Set<string>>();
  const walk = (v: unknown, path: string): void => {
    if (path !== '$') {
      const types = fields.get(path) ?? new Set<string>();
      types.add(typeOf(v));
      fields.set(path, types);
    }
    if (Array.isArray(v)) for (const item of v) walk(item, `${path}[]`);
    else if (isObject(v)) {
      for (const [key, child] of Object.entries(v)) {
        if (key === '_links' && isObject(child)) {
          const rels = links.get(`${path}._links`) ?? new Set<string>();
          for (const rel of Object.keys(child)) rels.add(rel);
          links.set(`${path}._links`, rels);
        } else walk(child, `${path}.${key}`);
      }
    }
  };
  if (value !== undefined) walk(value, '$');
  return { fields, links };
}

const typesText = (types: ReadonlySet<string>): string => [...types].sort().join('|');

/** The items (of a set, or a map's keys) one side has and the other has not. */
function compareSets(kindMissing: DifferenceKind, kindExtra: DifferenceKind, recorded: ReadonlyMap<string, unknown> | ReadonlySet<string>, simulator: ReadonlyMap<string, unknown> | ReadonlySet<string>, label: (item: string) => Found['at'], text: (item: string) => string): Found[] {
  const out: Found[] = [];
  for (const item of recorded.keys()) if (!simulator.has(item)) out.push({ kind: kindMissing, at: label(item), recorded: text(item) });
  for (const item of simulator.keys()) if (!recorded.has(item)) out.push({ kind: kindExtra, at: label(item), simulator: text(item) });
  return out;
}

function compareBodies(recorded: unknown, simulator: unknown): Found[] {
  const r = shapeOf(recorded);
  const s = shapeOf(simulator);
  const out = compareSets('field missing', 'field extra', r.fields, s.fields, (p) => p, (p) => typesText((r.fields.get(p) ?? s.fields.get(p)) as Set<string>));
  for (const [path, types] of r.fields) {
    const other = s.fields.get(path);
    if (other !== undefined && typesText(other) !== typesText(types)) out.push({ kind: 'type', at: path, recorded: typesText(types), simulator: typesText(other) });
  }
  for (const where of new Set([...r.links.keys(), ...s.links.keys()])) {
    const none = new Set<string>();
    out.push(...compareSets('link', 'link', r.links.get(where) ?? none, s.links.get(where) ?? none, (rel) => `${where}.${rel}`, () => 'present'));
  }
  return out;
}

const errorNameOf = (json: unknown): string | undefined => (isObject(json) && typeof json.errorName === 'string' ? json.errorName : undefined);

function jsonPathsOf(json: unknown): string[] {
  const items = isObject(json) && Array.isArray(json.validationErrors) ? json.validationErrors : [];
  return items.flatMap((item) => (isObject(item) && typeof item.jsonPath === 'string' ? [item.jsonPath] : []));
}

/** The jsonPaths one side has more often than the other (a multiset difference). */
function compareJsonPaths(recorded: readonly string[], simulator: readonly string[]): Found[] {
  const out: Found[] = [];
  const left = [...simulator];
  for (const path of recorded) {
    const at = left.indexOf(path);
    if (at === -1) out.push({ kind: 'jsonPath', at: path, recorded: 'reported' });
    else left.splice(at, 1);
  }
  for (const path of left) out.push({ kind: 'jsonPath', at: path, simulator: 'reported' });
  return out;
}

function compareHeader(name: string, recorded: string | undefined, simulator: string | undefined): Found[] {
  if (recorded === simulator) return [];
  return [{ kind: 'header', at: name, ...(recorded !== undefined && { recorded }), ...(simulator !== undefined && { simulator }) }];
}

/**
 * The differences between a recorded answer and the simulator's. `location` is the recorded Location mapped to
 * the simulator's href when it was learnt before (else the simulator's own, which is then learnt). When the
 * statuses differ, the status and errorName say what happened: the bodies are not of one kind, and their
 * fields, links and headers are not compared.
 */
export function compareAnswers(recorded: Answer, simulator: Answer, location: string | undefined): Found[] {
  const out: Found[] = [];
  const rError = errorNameOf(recorded.json);
  const sError = errorNameOf(simulator.json);
  if (recorded.status !== simulator.status) out.push({ kind: 'status', at: '', recorded: String(recorded.status), simulator: String(simulator.status) });
  if (rError !== sError) out.push({ kind: 'errorName', at: '', ...(rError !== undefined && { recorded: rError }), ...(sError !== undefined && { simulator: sError }) });
  if (recorded.status !== simulator.status) return out;
  out.push(...compareJsonPaths(jsonPathsOf(recorded.json), jsonPathsOf(simulator.json)));
  out.push(...compareHeader('Content-Type', recorded.headers.get('content-type'), simulator.headers.get('content-type')));
  out.push(...compareHeader('Location', location, simulator.headers.get('location')));
  out.push(...compareBodies(recorded.json, simulator.json));
  return out;
}

/** A recorded answer held against the simulator's, by kind and never by value; the report's lines (decision 0059). */
import { DIFFERENCE_KINDS, type Difference, type DifferenceKind, type VerifyReport } from './types.js';

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
  const add = (map: Map<string, Set<string>>, key: string, items: readonly string[]): void => {
    map.set(key, new Set([...(map.get(key) ?? []), ...items]));
  };
  const walk = (v: unknown, path: string): void => {
    if (path !== '$') add(fields, path, [typeOf(v)]);
    if (Array.isArray(v)) for (const item of v) walk(item, `${path}[]`);
    else if (isObject(v)) {
      for (const [key, child] of Object.entries(v)) {
        if (key === '_links' && isObject(child)) add(links, `${path}._links`, Object.keys(child));
        else walk(child, `${path}.${key}`);
      }
    }
  };
  if (value !== undefined) walk(value, '$');
  return { fields, links };
}

/** One difference of this kind where the two sides are not the same (a side without a value is left out). */
const differ = (kind: DifferenceKind, at: string, recorded: string | undefined, simulator: string | undefined): Found[] =>
  recorded === simulator ? [] : [{ kind, at, ...(recorded !== undefined && { recorded }), ...(simulator !== undefined && { simulator }) }];

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
    if (other !== undefined) out.push(...differ('type', path, typesText(types), typesText(other)));
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

/**
 * The differences between a recorded answer and the simulator's (`location`: the recorded Location as the simulator's
 * href). When the statuses differ, only status and errorName are compared: the bodies are not of one kind.
 */
export function compareAnswers(recorded: Answer, simulator: Answer, location: string | undefined): Found[] {
  const out = [
    ...differ('status', '', String(recorded.status), String(simulator.status)),
    ...differ('errorName', '', errorNameOf(recorded.json), errorNameOf(simulator.json)),
  ];
  if (recorded.status !== simulator.status) return out;
  return [
    ...out,
    ...compareJsonPaths(jsonPathsOf(recorded.json), jsonPathsOf(simulator.json)),
    ...differ('header', 'Content-Type', recorded.headers.get('content-type'), simulator.headers.get('content-type')),
    ...differ('header', 'Location', location, simulator.headers.get('location')),
    ...compareBodies(recorded.json, simulator.json),
  ];
}

const side = (value: string | undefined): string => value ?? '(none)';

/** `status  #3 POST /tokens: recorded 201, simulator 406`; `field missing  #3 POST /tokens: $.tokenId (string)`. */
function differenceLine(d: Difference): string {
  const where = `#${d.index} ${d.method} ${d.path}`;
  const at = d.at === '' ? '' : `${d.at} `;
  if (d.kind === 'field missing' || d.kind === 'field extra') return `${d.kind}  ${where}: ${at}(${side(d.recorded ?? d.simulator)})`;
  if (d.kind === 'jsonPath' || d.kind === 'link') return `${d.kind}  ${where}: ${at}${d.recorded === undefined ? 'only the simulator has it' : 'only the recording has it'}`;
  return `${d.kind}  ${where}: ${at}recorded ${side(d.recorded)}, simulator ${side(d.simulator)}`;
}

/** The verify report as lines: one per difference, grouped by kind, then a summary. */
export function reportLines(report: VerifyReport): string[] {
  const lines: string[] = [];
  for (const kind of DIFFERENCE_KINDS) for (const d of report.differences) if (d.kind === kind) lines.push(differenceLine(d));
  const answers = new Set(report.differences.map((d) => d.index)).size;
  const counts = Object.entries(report.counts).map(([kind, n]) => `${kind} ${n}`).join(', ');
  const n = report.differences.length;
  lines.push(
    n === 0
      ? `no difference in ${report.requests} answer${report.requests === 1 ? '' : 's'}`
      : `${n} difference${n === 1 ? '' : 's'} in ${answers} of ${report.requests} answers (${counts})`,
  );
  return lines;
}

/** Reads scenario files and bodies (JSON or YAML) into validated scenarios; an invalid one is refused whole. */
import { extname } from 'node:path';
import { createRequire } from 'node:module';
import type * as YamlNamespace from 'yaml';
import * as z from 'zod';
import { ConfigError, readConfigText } from '../config/fixtures.js';
import { checkJsonDepth } from '../wire/json.js';
import { OMITTED_PROBLEMS, WireError, type FieldPath, type FieldProblem } from '../wire/problems.js';
import { parseBounded, toJsonPath } from '../wire/validation.js';
import { scenarioSchema, type Scenario } from './schema.js';

export type ScenarioFormat = 'json' | 'yaml';

/** The yaml package, loaded on first use: most runs never read YAML, and it costs start-up time. */
let yamlModule: typeof YamlNamespace | undefined;
const yaml = (): typeof YamlNamespace => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof YamlNamespace);

/** Text → data; a syntax error is bodyIsNotJson (JSON) or a bodyDoesNotMatchSchema item at `$` (YAML). */
export function parseScenarioText(text: string, format: ScenarioFormat): unknown {
  if (text.trim() === '') throw new WireError('bodyIsEmpty', 'The scenario is empty');
  checkJsonDepth(text);
  if (format === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new WireError('bodyIsNotJson', 'The scenario is not valid JSON');
    }
  }
  try {
    return yaml().parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    const where = err instanceof yaml().YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}, column ${err.linePos[0].col}` : '';
    throw new WireError('bodyDoesNotMatchSchema', 'The scenario is not valid YAML', [
      { errorName: 'fieldHasInvalidValue', message: `the document is not valid YAML${where}`, path: [] },
    ]);
  }
}

/** Whether a document is a wrapper, `{scenarios: [...]}`, rather than one scenario. */
export const isWrapper = (data: unknown): data is { scenarios: unknown } => typeof data === 'object' && data !== null && 'scenarios' in data && !('name' in data);

/** Where each scenario of a document sits: `[i]` in a list, `['scenarios', i]` in a wrapper, `[]` alone. */
export function scenarioPaths(data: unknown, count: number): FieldPath[] {
  if (Array.isArray(data)) return Array.from({ length: count }, (_, i) => [i]);
  return isWrapper(data) ? Array.from({ length: count }, (_, i) => ['scenarios', i]) : [[]];
}

/** One scenario, a list of them, or `{scenarios: [...]}`. */
export function validateScenarios(data: unknown): Scenario[] {
  if (Array.isArray(data)) return parseBounded(z.array(scenarioSchema), data, 'scenarios');
  if (isWrapper(data)) return parseBounded(z.strictObject({ scenarios: z.array(scenarioSchema) }), data, 'scenarios').scenarios;
  return [parseBounded(scenarioSchema, data, 'scenario')];
}

export const formatOfPath = (path: string): ScenarioFormat => (extname(path).toLowerCase() === '.json' ? 'json' : 'yaml');

export interface FileProblem {
  jsonPath: string;
  message: string;
}

/** Every problem of a file as `{jsonPath, message}` (the first MAX_PROBLEMS, then a line saying more were omitted). */
export function problemsOf(err: unknown): FileProblem[] {
  if (!(err instanceof WireError)) return [{ jsonPath: '$', message: err instanceof Error ? err.message : String(err) }];
  const items: readonly FieldProblem[] = err.problems.length > 0 ? err.problems : [{ errorName: 'fieldHasInvalidValue', message: err.message, path: [] }];
  const listed = items.map((p) => ({ jsonPath: toJsonPath(p.path ?? []), message: p.message }));
  return err.omitted ? [...listed, { jsonPath: '$', message: OMITTED_PROBLEMS }] : listed;
}

/** A scenario file that cannot be read or is invalid (a ConfigError), with every problem and its JSONPath: `problems: [{jsonPath, message}]`. */
export class ScenarioFileError extends ConfigError {
  readonly problems: FileProblem[];
  constructor(path: string, problems: FileProblem[]) {
    super(`invalid scenario file ${path}: ${problems.map((p) => `${p.jsonPath}: ${p.message}`).join('; ')}`);
    this.name = 'ScenarioFileError';
    this.problems = problems;
  }
}

/** Scenario files and scenario objects (as the library takes them) → one validated list. */
export function resolveScenarios(items: readonly (string | object)[]): Scenario[] {
  return items.flatMap((item) => (typeof item === 'string' ? loadScenarioFile(item) : validateScenarios(item)));
}

/** A file's data (.json as JSON, anything else as YAML); a file that cannot be read is a ConfigError. */
export const readScenarioFile = (path: string): unknown => parseScenarioText(readConfigText(path, (why) => `cannot read the file (${why})`), formatOfPath(path));

/** Reads and validates a scenario file. */
export function loadScenarioFile(path: string): Scenario[] {
  try {
    return validateScenarios(readScenarioFile(path));
  } catch (err) {
    throw new ScenarioFileError(path, problemsOf(err));
  }
}

/**
 * The simulator's options from a JSON or YAML file (`--config`): keys are the options in camelCase, checked
 * strictly; relative file paths in it resolve against the file's folder (decision 0017).
 */
import { dirname, extname, resolve } from 'node:path';
import { ConfigError, readConfigText } from '../config/fixtures.js';
import { toJsonPath } from '../wire/validation.js';
import { closestField } from '../wire/unknown-fields.js';
import { OPTIONS, checkValue, type OptionSpec, type OptionValue } from './option-table.js';
import { parseFileValue } from './option-parse.js';

/** Every key a config file may hold: each option, and the plural of the repeatable ones (`users`, `scenarios`). */
const KEYS = new Map<string, OptionSpec>(OPTIONS.flatMap((spec) => [[spec.key, spec] as const, ...(spec.alias === undefined ? [] : [[spec.alias, spec] as const])]));

async function parseText(path: string, text: string): Promise<unknown> {
  if (extname(path).toLowerCase() === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ConfigError(`config file ${path} is not valid JSON`);
    }
  }
  // Loaded on first use, as the scenario loader does: most runs never read YAML.
  const yaml = await import('yaml');
  try {
    return yaml.parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (err) {
    const where = err instanceof yaml.YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}, column ${err.linePos[0].col}` : '';
    throw new ConfigError(`config file ${path} is not valid YAML${where}`);
  }
}

/** Reads and checks a config file; every problem of it on one line, each with its JSONPath. */
export async function readConfigFile(path: string): Promise<Partial<Record<string, OptionValue>>> {
  const data = await parseText(path, readConfigText(path, (why) => `cannot read config file ${path}: ${why}`));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`config file ${path}: $ must be an object of options (keys in camelCase, such as port or seed)`);
  }
  const folder = dirname(resolve(path));
  const values: Partial<Record<string, OptionValue>> = {};
  const keyOf = new Map<string, string>();
  const problems: string[] = [];
  for (const [key, raw] of Object.entries(data)) {
    const where = toJsonPath([key]);
    const spec = KEYS.get(key);
    if (spec === undefined) {
      const meant = closestField(key, [...KEYS.keys()]);
      problems.push(`${where} is not an option${meant === undefined ? '' : ` (did you mean ${meant}?)`}`);
      continue;
    }
    const earlier = keyOf.get(spec.key);
    if (earlier !== undefined) {
      problems.push(`${where}: ${earlier} and ${key} are the same option: give one of them`);
      continue;
    }
    keyOf.set(spec.key, key);
    const parsed = parseFileValue(spec.kind, raw);
    if ('problem' in parsed) {
      problems.push(`${where} ${parsed.problem}`);
      continue;
    }
    let value = parsed.value;
    if (spec.kind === 'file') value = resolve(folder, value as string);
    if (spec.kind === 'files') value = (value as string[]).map((file) => resolve(folder, file));
    const problem = checkValue(spec, value);
    if (problem !== undefined) problems.push(`${where} ${problem}`);
    else values[spec.key] = value;
  }
  if (problems.length > 0) throw new ConfigError(`config file ${path}: ${problems.join('; ')}`);
  return values;
}

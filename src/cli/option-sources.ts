/**
 * An option's value besides its default: a flag, a `TOKEN_SIM_*` variable or a `--config` file (its relative paths
 * against its folder), each kind read by one reader (decisions 0017, 0063); flag over environment over file.
 */
import { accessSync, constants } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError, readConfigText, type Fixtures } from '../config/fixtures.js';
import { resolveConfig, type SimulatorOptions } from '../config/options.js';
import { toJsonPath } from '../wire/validation.js';
import { closestField } from '../wire/unknown-fields.js';
import type { CliIo, Env } from './io.js';
import { OPTIONS, variableOf, type CliOptions, type Kind, type OptionSpec, type OptionValue } from './option-table.js';

export const MAX_WORKERS = 64;

/** `--workers <n|auto>`'s text → n, `auto`, or undefined when it is neither. */
function parseWorkers(text: string): number | 'auto' | undefined {
  if (text === 'auto') return 'auto';
  const n = Number(text);
  return /^\d{1,2}$/.test(text) && n >= 1 && n <= MAX_WORKERS ? n : undefined;
}

/**
 * How a kind is read: `must` follows its source's name (`TOKEN_SIM_PORT must be…`; `mustText` for a variable,
 * when it says more); `text` reads a flag's or a variable's text; undefined: refused. A file's value is read by
 * `file`, or else must have the JSON type `json` (default string) and is read as its text.
 */
interface Reader {
  must: string;
  mustText?: string;
  text: (text: string) => OptionValue | undefined;
  json?: 'number' | 'boolean';
  file?: (value: unknown) => OptionValue | undefined;
}

const count = (text: string): number | undefined => (/^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined);
const port = (n: number | undefined): number | undefined => (n !== undefined && n <= 65535 ? n : undefined);
const string: Reader = { must: 'must be a string', text: (text) => text };
/** Lists are split on newlines when there are any, else on commas; a file gives one string or a list of them. */
const list: Reader = {
  must: 'must be a string or a list of strings',
  text: (text) => text.split(text.includes('\n') ? /\r?\n/ : ',').map((item) => item.trim()).filter((item) => item !== ''),
  file: (value) => (typeof value === 'string' ? [value] : Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined),
};

const READERS: Record<Exclude<Kind, readonly string[]>, Reader> = {
  port: { must: 'must be a whole number from 0 to 65535', json: 'number', text: (text) => port(count(text)) },
  count: { must: 'must be a whole number', json: 'number', text: count },
  workers: {
    must: `must be a whole number from 1 to ${MAX_WORKERS} or auto`,
    text: parseWorkers,
    file: (value) => (value === 'auto' || typeof value === 'number' ? parseWorkers(String(value)) : undefined),
  },
  boolean: {
    must: 'must be true or false',
    mustText: 'must be true, false, 1 or 0',
    json: 'boolean',
    text: (text) => (/^(true|1)$/i.test(text) ? true : /^(false|0)$/i.test(text) ? false : undefined),
  },
  files: list,
  list,
  file: string,
  string,
};

function readerOf(kind: Kind): Reader {
  if (!Array.isArray(kind)) return READERS[kind as Exclude<Kind, readonly string[]>];
  return { must: `must be ${kind.slice(0, -1).join(', ')} or ${kind.at(-1)}`, text: (text) => (kind.includes(text) ? text : undefined) };
}

type Parsed = { value: OptionValue } | { problem: string };

export function parseEnvText(kind: Kind, text: string): Parsed {
  const reader = readerOf(kind);
  const value = reader.text(text);
  return value === undefined ? { problem: `${reader.mustText ?? reader.must}, got '${text}'` } : { value };
}

function flagParser(kind: Kind): (text: string) => OptionValue {
  const reader = readerOf(kind);
  return (text) => {
    const value = reader.text(text);
    if (value === undefined) throw new InvalidArgumentError(reader.must);
    return value;
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flag, spec.help);
  if (Array.isArray(spec.kind)) option.choices(spec.kind);
  else if (spec.kind === 'list' || spec.kind === 'files') option.argParser(collect);
  else if (spec.kind === 'port' || spec.kind === 'count' || spec.kind === 'workers') option.argParser(flagParser(spec.kind));
  if (spec.default !== undefined) option.default(spec.default);
  return option;
}

/** Fixtures that make resolveConfig check one option alone, without reading a file. */
const CHECK_FIXTURES: Fixtures = {
  credentials: [{ username: 'check', password: '', entities: ['default'] }],
  entities: { default: { currencies: [], networks: [] } },
  bins: [],
};

/**
 * What resolveConfig says about this option alone (it passes over the CLI's own), without the flag its messages
 * start with, to follow the source's name. Files are only checked to be readable: the simulator checks their content.
 */
export function checkValue(spec: OptionSpec, value: OptionValue): string | undefined {
  if (spec.kind === 'file' || spec.kind === 'files') {
    for (const path of typeof value === 'string' ? [value] : (value as string[])) {
      try {
        accessSync(path, constants.R_OK);
      } catch (err) {
        return `names a file that cannot be read: ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
      }
    }
    return undefined;
  }
  const options = { [spec.alias ?? spec.key]: value, fixtures: CHECK_FIXTURES } as SimulatorOptions;
  try {
    resolveConfig(options);
    return undefined;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const flagged = /^--[a-z-]+:?\s+([\s\S]*)$/.exec(err.message);
    return flagged ? flagged[1] : `is refused: ${err.message}`;
  }
}

type Values = Partial<Record<string, OptionValue>>;

/** A value read from a variable or a file: kept when resolveConfig takes it, else its problem after its source's name. */
function take(values: Values, problems: string[], name: string, spec: OptionSpec, parsed: Parsed): void {
  const problem = 'problem' in parsed ? parsed.problem : checkValue(spec, parsed.value);
  if (problem !== undefined) problems.push(`${name} ${problem}`);
  else if ('value' in parsed) values[spec.key] = parsed.value;
}

const PREFIX = 'TOKEN_SIM_';
const CONFIG_VARIABLE = 'TOKEN_SIM_CONFIG';
/** Set by the test-runner helpers for the tests they start: not an option, and no reason to warn. */
const NOT_OPTIONS: readonly string[] = [CONFIG_VARIABLE, 'TOKEN_SIM_URL'];

/** A variable set to the empty string counts as unset (as `${VAR:-}` in a compose file leaves it). */
const valueOf = (env: Env, name: string): string | undefined => (env[name] === '' ? undefined : env[name]);

/** The options `TOKEN_SIM_<OPTION>` variables set; refused values, each naming its variable; a warning per unknown `TOKEN_SIM_*`. */
export function readEnvironment(env: Env): { values: Values; problems: string[]; warnings: string[] } {
  const values: Values = {};
  const problems: string[] = [];
  const known = new Set(NOT_OPTIONS);
  for (const spec of OPTIONS) {
    const names = [variableOf(spec.key), ...(spec.alias === undefined ? [] : [variableOf(spec.alias)])];
    names.forEach((name) => known.add(name));
    const [name, other] = names.filter((name) => valueOf(env, name) !== undefined);
    if (name === undefined) continue;
    if (other !== undefined) {
      problems.push(`${name} and ${other} are the same option: set one of them`);
      continue;
    }
    take(values, problems, name, spec, parseEnvText(spec.kind, valueOf(env, name)!));
  }
  const warnings = Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && !known.has(name))
    .sort()
    .map((name) => {
      const meant = closestField(name.slice(PREFIX.length), [...known].map((k) => k.slice(PREFIX.length)));
      const hint = meant === undefined ? '' : ` (did you mean ${PREFIX}${meant}?)`;
      return `token-sim: warning: ${name} is not a token-sim option${hint}; it is ignored`;
    });
  return { values, problems, warnings };
}

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

/** How a refused value from a file is quoted: JSON, so its type shows (`"8080"` is a string). */
function quote(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}

/** The admin token from `--admin-token` or `--admin-token-file`, whatever their source (decision 0023). */
export function adminTokenOf(adminToken: string | undefined, adminTokenFile: string | undefined): string | undefined {
  if (adminTokenFile === undefined) return adminToken;
  if (adminToken !== undefined) throw new ConfigError('the admin token is given twice (--admin-token and --admin-token-file): set one');
  const token = readConfigText(adminTokenFile, (why) => `--admin-token-file ${adminTokenFile} cannot be read (${why})`).replace(/\r?\n$/, '');
  if (token === '') throw new ConfigError(`--admin-token-file ${adminTokenFile} is empty`);
  if (/\s/.test(token)) throw new ConfigError(`--admin-token-file ${adminTokenFile} must hold the token alone on one line, without spaces`);
  return token;
}

/** Reads and checks a config file; every problem of it on one line, each with its JSONPath. */
async function readConfigFile(path: string): Promise<Values> {
  const data = await parseText(path, readConfigText(path, (why) => `cannot read config file ${path}: ${why}`));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(`config file ${path}: $ must be an object of options (keys in camelCase, such as port or seed)`);
  }
  const folder = dirname(resolve(path));
  const values: Values = {};
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
    const reader = readerOf(spec.kind);
    let value = reader.file ? reader.file(raw) : typeof raw === (reader.json ?? 'string') ? reader.text(String(raw)) : undefined;
    if (value === undefined) {
      problems.push(`${where} ${reader.must}, got ${quote(raw)}`);
      continue;
    }
    if (spec.kind === 'file' || spec.kind === 'files') value = typeof value === 'string' ? resolve(folder, value) : (value as string[]).map((file) => resolve(folder, file));
    take(values, problems, where, spec, { value });
  }
  if (problems.length > 0) throw new ConfigError(`config file ${path}: ${problems.join('; ')}`);
  return values;
}

/** The flags, and for each option not given as one: its variable, else the config file's key, else the default. */
export async function withEnvironmentAndFile(flags: CliOptions, command: Command, io: CliIo): Promise<CliOptions> {
  const env = io.env ?? {};
  const environment = readEnvironment(env);
  for (const warning of environment.warnings) io.err(warning);
  const configPath = flags.config ?? valueOf(env, CONFIG_VARIABLE);
  const file = configPath === undefined ? {} : await readConfigFile(configPath);
  if (environment.problems.length > 0) throw new ConfigError(environment.problems.join('; '));
  const merged: Record<string, unknown> = { ...flags };
  for (const { key } of OPTIONS) {
    if (command.getOptionValueSource(key) === 'cli') continue;
    const value = environment.values[key] ?? file[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

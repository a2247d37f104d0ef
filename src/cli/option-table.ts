/**
 * The simulator's options as the environment and a config file give them: one table, read two ways
 * (text from `TOKEN_SIM_*` variables, JSON/YAML values from a file). Decision 0017.
 */
import { accessSync, constants } from 'node:fs';
import { ConfigError, type Fixtures } from '../config/fixtures.js';
import { resolveConfig, type SimulatorOptions } from '../config/options.js';

/** Option names as commander stores them (the flags in camelCase). */
export type OptionKey =
  | 'port' | 'host' | 'profile' | 'tokenLifetime' | 'tokenExtension' | 'settlementDelay' | 'now' | 'frozen' | 'seed' | 'fixtures' | 'user'
  | 'vendor' | 'baseUrl' | 'adminToken' | 'adminTokenFile' | 'drainTimeout' | 'stateFile' | 'stateInterval' | 'stateKey' | 'journalSize' | 'journalTotal' | 'stateLimit' | 'scenario' | 'watch' | 'log'
  | 'webhookUrl' | 'store' | 'storePrefix' | 'workers' | 'allowedHost' | 'allowedOrigin';

export type OptionValue = string | number | boolean | string[];

type Kind = 'string' | 'file' | 'files' | 'list' | 'boolean' | 'port' | 'count' | 'workers' | readonly string[];

export interface OptionSpec {
  key: OptionKey;
  kind: Kind;
  /** The plural a config file and the environment also take for a repeatable option (the library's name). */
  alias?: string;
  /** resolveConfig checks the value further (durations, dates, URLs…). */
  checked?: true;
}

export const OPTIONS: readonly OptionSpec[] = [
  { key: 'port', kind: 'port' },
  { key: 'host', kind: 'string' },
  { key: 'profile', kind: ['try', 'live'] },
  { key: 'tokenLifetime', kind: 'string', checked: true },
  { key: 'tokenExtension', kind: 'string', checked: true },
  { key: 'settlementDelay', kind: 'string', checked: true },
  { key: 'now', kind: 'string', checked: true },
  { key: 'frozen', kind: 'boolean' },
  { key: 'seed', kind: 'string' },
  { key: 'fixtures', kind: 'file' },
  { key: 'user', kind: 'list', alias: 'users', checked: true },
  { key: 'vendor', kind: 'string', checked: true },
  { key: 'baseUrl', kind: 'string', checked: true },
  { key: 'allowedHost', kind: 'list', alias: 'allowedHosts', checked: true },
  { key: 'allowedOrigin', kind: 'list', alias: 'allowedOrigins', checked: true },
  { key: 'webhookUrl', kind: 'string', checked: true },
  { key: 'adminToken', kind: 'string', checked: true },
  { key: 'adminTokenFile', kind: 'file' },
  { key: 'journalSize', kind: 'count' },
  { key: 'journalTotal', kind: 'count' },
  { key: 'stateLimit', kind: 'string', checked: true },
  { key: 'scenario', kind: 'files', alias: 'scenarios' },
  { key: 'watch', kind: 'boolean' },
  { key: 'drainTimeout', kind: 'string', checked: true },
  { key: 'stateFile', kind: 'string', checked: true },
  { key: 'stateInterval', kind: 'string', checked: true },
  { key: 'stateKey', kind: 'string', checked: true },
  { key: 'log', kind: ['pretty', 'json', 'silent'] },
  { key: 'store', kind: 'string', checked: true },
  { key: 'storePrefix', kind: 'string', checked: true },
  { key: 'workers', kind: 'workers' },
];

/** `--workers`: at most this many processes. */
export const MAX_WORKERS = 64;

/** `--workers <n|auto>`'s text → n, `auto`, or undefined when it is neither. */
export function parseWorkers(text: string): number | 'auto' | undefined {
  if (text === 'auto') return 'auto';
  const n = Number(text);
  return /^\d{1,2}$/.test(text) && n >= 1 && n <= MAX_WORKERS ? n : undefined;
}

/** A value refused: `problem` follows the name of where it came from (`TOKEN_SIM_PORT must be…`). */
type Parsed = { value: OptionValue } | { problem: string };

function describeKind(kind: Kind): string {
  if (Array.isArray(kind)) return `must be ${kind.slice(0, -1).join(', ')} or ${kind.at(-1)}`;
  switch (kind) {
    case 'port':
      return 'must be a whole number from 0 to 65535';
    case 'count':
      return 'must be a whole number';
    case 'workers':
      return `must be a whole number from 1 to ${MAX_WORKERS} or auto`;
    case 'boolean':
      return 'must be true or false';
    case 'files':
    case 'list':
      return 'must be a string or a list of strings';
    default:
      return 'must be a string';
  }
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** A variable's text → the option's value. Lists are split on newlines when there are any, else on commas. */
export function parseEnvText(kind: Kind, text: string): Parsed {
  const refuse = (must: string): Parsed => ({ problem: `${must}, got '${text}'` });
  if (Array.isArray(kind)) return kind.includes(text) ? { value: text } : refuse(describeKind(kind));
  switch (kind) {
    case 'port':
    case 'count': {
      const n = Number(text);
      if (!/^\d+$/.test(text) || !isCount(n) || (kind === 'port' && n > 65535)) return refuse(describeKind(kind));
      return { value: n };
    }
    case 'workers': {
      const workers = parseWorkers(text);
      return workers === undefined ? refuse(describeKind(kind)) : { value: workers };
    }
    case 'boolean':
      if (/^(true|1)$/i.test(text)) return { value: true };
      if (/^(false|0)$/i.test(text)) return { value: false };
      return refuse('must be true, false, 1 or 0');
    case 'files':
    case 'list':
      return { value: text.split(text.includes('\n') ? /\r?\n/ : ',').map((item) => item.trim()).filter((item) => item !== '') };
    default:
      return { value: text };
  }
}

/** How a refused value from a file is quoted: JSON, so its type shows (`"8080"` is a string). */
function quote(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
}

/** A config file's value → the option's value. */
export function parseFileValue(kind: Kind, value: unknown): Parsed {
  const refuse = (): Parsed => ({ problem: `${describeKind(kind)}, got ${quote(value)}` });
  if (Array.isArray(kind)) return typeof value === 'string' && kind.includes(value) ? { value } : refuse();
  switch (kind) {
    case 'port':
      return isCount(value) && value <= 65535 ? { value } : refuse();
    case 'count':
      return isCount(value) ? { value } : refuse();
    case 'workers':
      return value === 'auto' || (Number.isInteger(value) && parseWorkers(String(value)) !== undefined) ? { value: value as number | string } : refuse();
    case 'boolean':
      return typeof value === 'boolean' ? { value } : refuse();
    case 'files':
    case 'list':
      if (typeof value === 'string') return { value: [value] };
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? { value } : refuse();
    default:
      return typeof value === 'string' ? { value } : refuse();
  }
}

/** Fixtures that make resolveConfig check one option alone, without reading a file. */
const CHECK_FIXTURES: Fixtures = {
  credentials: [{ username: 'check', password: '', entities: ['default'] }],
  entities: { default: { currencies: [], networks: [] } },
  bins: [],
};

/** The first of these files that cannot be read, as a problem. */
function unreadable(paths: readonly string[]): string | undefined {
  for (const path of paths) {
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      return `names a file that cannot be read: ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
  }
  return undefined;
}

/**
 * What resolveConfig says about this option alone, worded to follow the name of its source: its messages
 * start with the flag (`--now must be…`), which is dropped. One set of rules for flags, variables and files.
 * Files are only checked to be readable here; their content is checked (and reported with its JSONPaths) when
 * the simulator loads them.
 */
export function checkValue(spec: OptionSpec, value: OptionValue): string | undefined {
  if (spec.kind === 'file' || spec.kind === 'files') return unreadable(typeof value === 'string' ? [value] : (value as string[]));
  if (!spec.checked) return undefined;
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

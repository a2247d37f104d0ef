/** How an option's text (a flag's, a `TOKEN_SIM_*` variable's) or value (a config file's) is read, by its kind (decision 0048). */
import { InvalidArgumentError } from 'commander';

export type OptionValue = string | number | boolean | string[];

export type Kind = 'string' | 'file' | 'files' | 'list' | 'boolean' | 'port' | 'count' | 'workers' | readonly string[];

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

/** What a value of each kind must be: the refusal after its source's name. */
const MUST: Record<Exclude<Kind, readonly string[]>, string> = {
  port: 'must be a whole number from 0 to 65535',
  count: 'must be a whole number',
  workers: `must be a whole number from 1 to ${MAX_WORKERS} or auto`,
  boolean: 'must be true or false',
  files: 'must be a string or a list of strings',
  list: 'must be a string or a list of strings',
  file: 'must be a string',
  string: 'must be a string',
};

/** commander's parsers: a flag's text → the value, or the kind's refusal. */
export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(MUST.count);
  return Number(value);
}

export function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError(MUST.port);
  return port;
}

export function workerCount(value: string): number | 'auto' {
  const workers = parseWorkers(value);
  if (workers === undefined) throw new InvalidArgumentError(MUST.workers);
  return workers;
}

const describeKind = (kind: Kind): string => (typeof kind === 'string' ? MUST[kind] : `must be ${kind.slice(0, -1).join(', ')} or ${kind.at(-1)}`);

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

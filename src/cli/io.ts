/**
 * Where the command line writes, exits and hears stop signals (the process, or a test's stand-in), whether it
 * colours (`NO_COLOR`, `FORCE_COLOR`), and the banner it writes to stderr on a terminal (decision 0017).
 */
import { fileURLToPath } from 'node:url';
import type { SimulatorConfig } from '../config/options.js';
import { describeStore } from '../config/store.js';

/** The environment as the CLI reads it: process.env for the process, a plain object in tests. */
export type Env = Readonly<Record<string, string | undefined>>;

/** `FORCE_COLOR` set to anything but '', '0' or 'false': colour (and the banner) even off a terminal. */
export function colorForced(env: Env): boolean {
  const force = env.FORCE_COLOR;
  return force !== undefined && force !== '' && force !== '0' && force !== 'false';
}

/** Colour for a stream: never with a non-empty `NO_COLOR` or `FORCE_COLOR=0|false`, always when forced, else on a terminal. */
export function colorEnabled(isTTY: boolean, env: Env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  return colorForced(env) || isTTY;
}

const ESC = '\u001b[';

/** ANSI styles that do nothing when colour is off. */
export function paint(color: boolean): { bold: (s: string) => string; cyan: (s: string) => string; dim: (s: string) => string } {
  const style = (code: number) => (s: string) => (color ? `${ESC}${code}m${s}${ESC}0m` : s);
  return { bold: style(1), cyan: style(36), dim: style(2) };
}

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  exit: (code: number) => void;
  /** Registers a handler for SIGINT and SIGTERM. */
  onStopSignal: (handler: (signal: string) => void) => void;
  /** Whether stderr is a terminal: the banner, and colour in it and in the pretty log. */
  isTTY?: boolean;
  /** Help text: wrap width (default 80), and whether stdout is a terminal that shows colours (default not). */
  helpWidth?: number;
  helpColors?: boolean;
  /** `TOKEN_SIM_*` options, `NO_COLOR` and `FORCE_COLOR`: process.env for the process, none by default. */
  env?: Env;
}

export const processIo: CliIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  exit: (code) => process.exit(code),
  onStopSignal(handler) {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  },
  isTTY: process.stderr.isTTY,
  ...(process.stdout.isTTY && { helpWidth: process.stdout.columns, helpColors: true }),
  env: process.env,
};

/** The documentation index: beside src/ and dist/ alike, and shipped in the package. */
export const DOCS_PATH = fileURLToPath(new URL('../../docs/README.md', import.meta.url));

/** More credentials than this are counted, not listed: a fixtures file may hold hundreds. */
const MAX_CREDENTIALS = 5;

type BannerInfo = Pick<SimulatorConfig, 'store' | 'storePrefix'> & {
  version: string;
  url: string;
  credentials: ReadonlyMap<string, { password: string }>;
  /** `/_sim` needs a Bearer token. */
  adminToken: boolean;
  /** Processes sharing the port (--workers); shown when more than one. */
  workers: number;
};

export function bannerLines(info: BannerInfo, color: boolean): string[] {
  const { bold, cyan, dim } = paint(color);
  const users = [...info.credentials].map(([username, { password }]) => `${username}:${password}`);
  const shown = users.slice(0, MAX_CREDENTIALS).join(', ');
  const more = users.length > MAX_CREDENTIALS ? ` and ${users.length - MAX_CREDENTIALS} more` : '';
  const guarded = info.adminToken ? dim(' (Authorization: Bearer <admin token>)') : '';
  const row = (label: string, value: string) => `  ${bold(label.padEnd(12))}${value}`;
  return [
    `${bold(`token-sim ${info.version}`)} ${dim('(a sandbox for test cards; Ctrl+C stops it)')}`,
    row('API', cyan(info.url)),
    row('Credentials', `${shown}${more}`),
    row('Control API', `${cyan(`${info.url}/_sim`)}${guarded}`),
    row('Dashboard', `${cyan(`${info.url}/_sim/ui`)}${guarded}`),
    row('Store', info.store.kind === 'memory' ? 'memory' : `${describeStore(info.store)} ${dim(`(keys ${info.storePrefix}*)`)}`),
    ...(info.workers > 1 ? [row('Workers', String(info.workers))] : []),
    row('Docs', DOCS_PATH),
  ];
}

/**
 * Where the command line writes, exits and hears stop signals (the process, or a test's stand-in), and whether it
 * colours what it writes: from the terminal, `NO_COLOR` (https://no-color.org) and `FORCE_COLOR` (as commander,
 * Node and supports-color read it). Decision 0017.
 */

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

/** Where the command line writes, exits and hears stop signals: the process, or a test's stand-in. */
import type { Env } from './color.js';

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

/**
 * One line per request on stderr: `pretty` for people (colours only on a terminal), `json` for machines
 * (pino, one object per line), or nothing. Paths are masked: a client may put a card number in a URL.
 */
import type { RequestHandler } from 'express';
import { pino, stdTimeFunctions } from 'pino';
import type { LogFormat } from '../config/options.js';
import { maskCardNumbersIn } from '../wire/mask.js';

export type LogWrite = (line: string) => void;

export interface RequestLogOptions {
  format: LogFormat;
  write: LogWrite;
  /** Colour the pretty format (only when stderr is a terminal). */
  color: boolean;
}

const COLOURS = { 2: '\u001b[32m', 3: '\u001b[36m', 4: '\u001b[33m', 5: '\u001b[31m' } as Record<number, string>;
const RESET = '\u001b[0m';
const DIM = '\u001b[2m';

export interface LogLine {
  method: string;
  /** As requested: masked when written. */
  path: string;
  status: number;
  ms: number;
  correlationId: string;
}

export type RequestLogger = (line: LogLine) => void;

function prettyLine({ method, path, status, ms, correlationId }: LogLine, color: boolean): string {
  const paint = (code: string, text: string | number): string => (color ? `${code}${text}${RESET}` : String(text));
  return `${method} ${path} ${paint(COLOURS[Math.floor(status / 100)] ?? '', status)} ${ms.toFixed(1)}ms ${paint(DIM, correlationId)}`;
}

/** The logger of one simulator; undefined when it logs nothing. */
export function createRequestLogger({ format, write, color }: RequestLogOptions): RequestLogger | undefined {
  if (format === 'silent') return undefined;
  if (format === 'json') {
    // pino writes to our sink (so the CLI's stderr, or a test's capture), synchronously: nothing is lost at exit.
    const logger = pino({ base: null, timestamp: stdTimeFunctions.isoTime, messageKey: 'msg' }, { write: (chunk: string) => write(chunk.trimEnd()) });
    return (line) => logger.info({ ...line, path: maskCardNumbersIn(line.path) }, 'request');
  }
  return (line) => write(prettyLine({ ...line, path: maskCardNumbersIn(line.path) }, color));
}

/** Milliseconds since `started` (a performance.now() reading), to the microsecond. */
export const elapsedMs = (started: number): number => Math.round((performance.now() - started) * 1e3) / 1e3;

/**
 * The logger as Express middleware, for the routes the Express adapter serves on its own (/_sim); the id is
 * the one the answer carries under `correlationHeader`.
 */
export function logMiddleware(logger: RequestLogger, correlationHeader: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method } = req;
    const path = req.originalUrl.split('?')[0] ?? '';
    res.once('finish', () => logger({ method, path, status: res.statusCode, ms: elapsedMs(started), correlationId: res.getHeader(correlationHeader) as string }));
    next();
  };
}

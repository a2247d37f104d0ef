/**
 * One line per request on stderr: `pretty` for people (colours only on a terminal), `json` for machines
 * (pino, one object per line), or nothing. Paths are masked: a client may put a card number in a URL.
 */
import type { RequestHandler } from 'express';
import { pino, stdTimeFunctions } from 'pino';
import type { LogFormat } from '../config/options.js';
import { maskCardNumbersIn } from '../control/mask.js';

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

interface Line {
  method: string;
  path: string;
  status: number;
  ms: number;
  correlationId: string;
}

function prettyLine(line: Line, color: boolean): string {
  const text = `${line.method} ${line.path} ${line.status} ${line.ms.toFixed(1)}ms ${line.correlationId}`;
  if (!color) return text;
  const c = COLOURS[Math.floor(line.status / 100)] ?? '';
  return `${line.method} ${line.path} ${c}${line.status}${RESET} ${line.ms.toFixed(1)}ms ${DIM}${line.correlationId}${RESET}`;
}

export function createRequestLog({ format, write, color }: RequestLogOptions): RequestHandler | undefined {
  if (format === 'silent') return undefined;
  // pino writes to our sink (so the CLI's stderr, or a test's capture), synchronously: nothing is lost at exit.
  const logger =
    format === 'json'
      ? pino({ base: null, timestamp: stdTimeFunctions.isoTime, messageKey: 'msg' }, { write: (chunk: string) => write(chunk.trimEnd()) })
      : undefined;
  return (req, res, next) => {
    const started = performance.now();
    const { method } = req;
    const path = maskCardNumbersIn(req.path);
    res.once('finish', () => {
      const line: Line = { method, path, status: res.statusCode, ms: Math.round((performance.now() - started) * 1e3) / 1e3, correlationId: res.locals.correlationId as string };
      if (logger) logger.info(line, 'request');
      else write(prettyLine(line, color));
    });
    next();
  };
}

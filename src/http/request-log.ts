/** One line per request on stderr: `pretty` for people, `json` for machines, or nothing. */
import type { RequestHandler } from 'express';
import type { LogFormat } from '../config/options.js';
import { maskCardNumbersIn } from '../control/mask.js';

export type LogWrite = (line: string) => void;

export function createRequestLog(format: LogFormat, write: LogWrite): RequestHandler | undefined {
  if (format === 'silent') return undefined;
  return (req, res, next) => {
    const started = performance.now();
    // req.path holds no card data: token refs are opaque, and the API takes card data only in bodies.
    const { method } = req;
    const path = maskCardNumbersIn(req.path);
    res.once('finish', () => {
      const ms = performance.now() - started;
      const correlationId = res.locals.correlationId as string;
      if (format === 'json') {
        write(JSON.stringify({ time: new Date().toISOString(), method, path, status: res.statusCode, ms: Number(ms.toFixed(3)), correlationId }));
      } else {
        write(`${method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms ${correlationId}`);
      }
    });
    next();
  };
}

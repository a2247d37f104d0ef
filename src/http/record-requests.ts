/** Writes one journal entry per API request once its answer is sent. Never records headers (credentials). */
import type { Request, RequestHandler } from 'express';
import type { Journal } from '../control/journal.js';
import { maskCardData } from '../control/mask.js';
import { formatInstant } from '../domain/instant.js';
import type { Clock } from '../domain/ports.js';
import { operationOf } from './routing.js';

export interface RecordRequestsDeps {
  journal: Journal;
  clock: Clock;
  /** The authenticated username, or undefined before (or without) authentication. */
  userOf: (req: Request) => string | undefined;
}

function maskedBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    return maskCardData(JSON.parse(body.toString('utf8')));
  } catch {
    return undefined;
  }
}

export function recordRequests(deps: RecordRequestsDeps): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const { method } = req;
    const path = req.path;
    let recorded = false;
    /** On 'finish' (answered) or, for a fault or a client that gave up, on 'close' with status 0. */
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      const answered = res.writableFinished;
      const user = answered && res.statusCode === 401 ? undefined : deps.userOf(req);
      const tenant = user ?? null;
      const requestBody = maskedBody(req.body);
      const errorName = (answered ? res.locals.errorName : (res.locals.fault ?? 'clientClosedRequest')) as string | undefined;
      const rule = res.locals.rule as string | undefined;
      deps.journal.record({
        tenant,
        operation: operationOf(method, path),
        method,
        path,
        status: answered ? res.statusCode : 0,
        ...(errorName !== undefined && { errorName }),
        correlationId: String(res.getHeader('Correlation-Id') ?? ''),
        virtualTime: formatInstant(deps.clock.now(tenant ?? '')),
        realTime: new Date().toISOString(),
        durationMs: Number((Number(process.hrtime.bigint() - started) / 1e6).toFixed(3)),
        rule: rule ?? null,
        ...(requestBody !== undefined && { requestBody }),
      });
    };
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}

/** Writes one journal entry per API request once its answer is sent. Never records headers (credentials). */
import type { Request, RequestHandler } from 'express';
import type { Journal } from '../control/journal.js';
import type { Clock } from '../domain/ports.js';
import { rawBodyOf } from './body.js';
import { operationOf } from './routing.js';

export interface RecordRequestsDeps {
  journal: Journal;
  clock: Clock;
  /** The authenticated username, or undefined before (or without) authentication. */
  userOf: (req: Request) => string | undefined;
}

export function recordRequests(deps: RecordRequestsDeps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const { method } = req;
    const path = req.path; // card numbers in it are masked when the journal is listed
    /** On 'close', which follows every answer; a fault or a client that gave up closes unanswered (status 0). */
    res.once('close', () => {
      const answered = res.writableFinished;
      const user = answered && res.statusCode === 401 ? undefined : deps.userOf(req);
      const tenant = user ?? null;
      const body = rawBodyOf(req);
      const errorName = (answered ? res.locals.errorName : (res.locals.fault ?? 'clientClosedRequest')) as string | undefined;
      const rule = res.locals.rule as string | undefined;
      deps.journal.record({
        tenant,
        operation: operationOf(method, path),
        method,
        path,
        status: answered ? res.statusCode : 0,
        ...(errorName !== undefined && { errorName }),
        correlationId: res.locals.correlationId as string,
        virtualMs: deps.clock.now(tenant ?? ''),
        realMs: Date.now(),
        durationMs: Math.round((performance.now() - started) * 1e3) / 1e3,
        rule: rule ?? null,
        ...(body !== undefined && body.length > 0 && { body }),
      });
    });
    next();
  };
}

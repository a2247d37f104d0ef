/** The control API under /_sim: health and the virtual clock (the rest of the control plane comes later). */
import { Router } from 'express';
import { addDuration, parseDuration } from '../domain/duration.js';
import { fieldError } from '../domain/errors.js';
import { formatInstant, parseInstant } from '../domain/instant.js';
import type { VirtualClock } from '../infra/clock.js';
import { jsonBody, readRawBody } from './body.js';
import { methodNotAllowed } from './routing.js';
import { sendJson } from './send.js';
import { clockAdvanceBody, clockSetBody } from './schemas.js';
import { parseBody } from './validation.js';

export interface ControlRoutesDeps {
  clock: VirtualClock;
}

export function createControlRoutes({ clock }: ControlRoutesDeps): Router {
  const router = Router();
  const clockView = (): { now: string; frozen: boolean } => ({ now: formatInstant(clock.now()), frozen: clock.frozen });

  router.route('/_sim/health').get((_req, res) => sendJson(res, 200, { status: 'ok' })).all(methodNotAllowed('GET'));

  router
    .route('/_sim/clock')
    .get((_req, res) => sendJson(res, 200, clockView()))
    .put(readRawBody, (req, res) => {
      const body = parseBody(clockSetBody, jsonBody(req));
      clock.set(parseInstant(body.now) ?? Number.NaN, body.frozen);
      sendJson(res, 200, clockView());
    })
    .all(methodNotAllowed('GET, PUT'));

  router
    .route('/_sim/clock/advance')
    .post(readRawBody, (req, res) => {
      const { by } = parseBody(clockAdvanceBody, jsonBody(req));
      const now = clock.now();
      let ms: number | undefined;
      if (typeof by === 'number') ms = by;
      else {
        const d = parseDuration(by);
        if (d) ms = addDuration(now, d) - now;
      }
      if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
        throw fieldError('fieldHasInvalidValue', ['by'], 'by must be a non-negative ISO 8601 duration (P8D) or number of milliseconds');
      }
      clock.advance(ms);
      sendJson(res, 200, clockView());
    })
    .all(methodNotAllowed('POST'));

  return router;
}

/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
import type { Response } from 'express';

export function sendJson(res: Response, status: number, body: unknown, mediaType = 'application/json'): void {
  // Node's setHeader, not Express's res.set, which adds a charset to application/json.
  res.status(status).setHeader('Content-Type', mediaType);
  res.end(JSON.stringify(body));
}

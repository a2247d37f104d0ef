/** Writes a JSON body with exactly the given media type (Express would append `; charset=utf-8`). */
import type { Response } from 'express';

export function sendJson(res: Response, status: number, body: unknown, mediaType = 'application/json'): void {
  sendText(res, status, JSON.stringify(body), mediaType);
}

/** Already-serialized JSON. Node's setHeader, not Express's res.set, which adds a charset to application/json. */
export function sendText(res: Response, status: number, json: string, mediaType: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', mediaType);
  res.end(json);
}

/** Media types of the simulated API and the Accept / Content-Type checks shared by every endpoint. */
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from './errors.js';

export const mediaTypesFor = (vendor: string) => ({
  token: `application/vnd.${vendor}.tokens-v1.hal+json`,
  saleRequest: `application/vnd.${vendor}.payments-v5+json`,
  saleResponse: `application/vnd.${vendor}.payments-v5.hal+json`,
  /** Payment queries (contract 4.4): what Accept asks for, and what the answer is. */
  paymentQueries: `application/vnd.${vendor}.payment-queries-v1.hal+json`,
});

export type MediaTypes = ReturnType<typeof mediaTypesFor>;

/** `Application/JSON; charset=utf-8` → `application/json`. */
export function essence(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

/** True when an Accept header lists one of `allowed`, `*\/*` or `application/*` with a non-zero q. */
function acceptsOneOf(accept: string, allowed: readonly string[]): boolean {
  if (allowed.includes(accept)) return true;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const name = type.trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (name === '*/*' || name === 'application/*' || allowed.includes(name)) return true;
  }
  return false;
}

/** Whether Accept asks for `mediaType` with `masked=false` (any case, maybe quoted) in a range whose q is not 0 (decision 0031). */
export function asksUnmasked(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || !accept.includes('=')) return false;
  const wanted = mediaType.toLowerCase();
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    if (type.trim().toLowerCase() !== wanted) continue;
    let unmasked = false;
    let refused = false;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq === -1) continue;
      const name = param.slice(0, eq).trim().toLowerCase();
      let value = param.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (name === 'masked' && value.toLowerCase() === 'false') unmasked = true;
      else if (name === 'q' && Number(value) === 0) refused = true;
    }
    if (unmasked && !refused) return true;
  }
  return false;
}

export interface HeaderRules {
  /** The media type a request body must have; omit for requests without a body. */
  contentType?: string;
  /** Media types the client may ask for in Accept. */
  accept: readonly string[];
}

/** Whether a request carries body bytes: chunked, or a Content-Length above 0 (`00` is none, as node reads it). */
export const hasBody = (headers: IncomingHttpHeaders): boolean => headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/** Content-Type (with a body): missing → 400, other → 415; then Accept: missing → 400, other → 406. */
export function checkHeaders(rules: HeaderRules, headers: IncomingHttpHeaders): void {
  const contentType = headers['content-type'];
  if (rules.contentType !== undefined) {
    if (contentType === undefined) {
      if (hasBody(headers)) throw new HttpError('contentTypeMissing', 'The Content-Type header is required');
    } else if (essence(contentType) !== rules.contentType) {
      throw new HttpError('contentTypeUnsupported', `Content-Type must be ${rules.contentType}`);
    }
  }
  const accept = headers.accept;
  if (accept === undefined || accept.trim() === '') throw new HttpError('acceptMissing', 'The Accept header is required');
  if (!acceptsOneOf(accept, rules.accept)) throw new HttpError('acceptNotAcceptable', `Accept must allow ${rules.accept.join(' or ')}`);
}

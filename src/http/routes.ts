/** The simulated API's routes, and how a path finds one exactly as Express's router would. */
import type { ApiOperationName } from './operations/types.js';
import { HttpError } from './errors.js';

export interface ApiRoute {
  /** The route in Express's syntax (`:ref` is the token ref). */
  readonly pattern: string;
  /** The methods it answers, for a 405's Allow header. */
  readonly allow: string;
  readonly methods: Readonly<Partial<Record<string, ApiOperationName>>>;
}

const TOKENS_ROUTE: ApiRoute = { pattern: '/tokens', allow: 'POST', methods: { POST: 'createToken' } };
const TOKEN_ROUTE: ApiRoute = {
  pattern: '/tokens/:ref',
  allow: 'GET, PUT, DELETE',
  methods: { GET: 'getToken', HEAD: 'getToken', PUT: 'updateToken', DELETE: 'deleteToken' },
};
const SALE_ROUTE: ApiRoute = { pattern: '/payments/sales/migrateCardOnFile', allow: 'POST', methods: { POST: 'sale' } };
export const API_ROUTES: readonly ApiRoute[] = [TOKENS_ROUTE, TOKEN_ROUTE, SALE_ROUTE];

export interface RouteMatch {
  route: ApiRoute;
  /** The path parameter as it appears in the URL (not yet percent-decoded). */
  rawRef?: string;
}

const SALE_PATH = SALE_ROUTE.pattern.toLowerCase();

/**
 * The route of a path (without its query) as Express matches it: case-insensitive, one optional trailing
 * slash, a ref of at least one character without a slash. Undefined for any other path.
 */
export function matchApiPath(path: string): RouteMatch | undefined {
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  const lower = path.slice(0, end).toLowerCase();
  if (lower === '/tokens') return { route: TOKENS_ROUTE };
  if (lower.startsWith('/tokens/')) {
    const rawRef = path.slice(8, end);
    return rawRef.length > 0 && !rawRef.includes('/') ? { route: TOKEN_ROUTE, rawRef } : undefined;
  }
  return lower === SALE_PATH ? { route: SALE_ROUTE } : undefined;
}

/** A path parameter percent-decoded as Express decodes it; a malformed one is a 400. */
export function decodeRef(rawRef: string): string {
  if (!rawRef.includes('%')) return rawRef;
  try {
    return decodeURIComponent(rawRef);
  } catch {
    throw urlInvalid();
  }
}

export function urlInvalid(): HttpError {
  return new HttpError('urlInvalid', 'The URL holds an invalid percent-encoding', {
    problems: [{ errorName: 'fieldHasInvalidValue', message: 'The path is not valid percent-encoded UTF-8' }],
  });
}

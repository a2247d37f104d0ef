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

const TOKENS_ROUTE: ApiRoute = {
  pattern: '/tokens',
  allow: 'GET, POST',
  methods: { GET: 'queryTokens', HEAD: 'queryTokens', POST: 'createToken' },
};
const TOKEN_ROUTE: ApiRoute = {
  pattern: '/tokens/:ref',
  allow: 'GET, PUT, DELETE',
  methods: { GET: 'getToken', HEAD: 'getToken', PUT: 'updateToken', DELETE: 'deleteToken' },
};
const SALE_ROUTE: ApiRoute = { pattern: '/payments/sales/migrateCardOnFile', allow: 'POST', methods: { POST: 'sale' } };
/** The follow-ups of a sale, each behind its own payment ref (contract 3.2). */
const PAYMENT_ROUTES: readonly ApiRoute[] = [
  { pattern: '/payments/settlements/refunds/full/:ref', allow: 'POST', methods: { POST: 'refund' } },
  { pattern: '/payments/settlements/refunds/partials/:ref', allow: 'POST', methods: { POST: 'partialRefund' } },
  { pattern: '/payments/sales/reversals/:ref', allow: 'POST', methods: { POST: 'reversal' } },
  { pattern: '/payments/events/:ref', allow: 'GET', methods: { GET: 'paymentEvents', HEAD: 'paymentEvents' } },
];
/**
 * Payment queries (contract 4.4, decision 0057): the tenant's payments by transactionReference, and one payment
 * by its paymentId (the ref that ends its links).
 */
export const PAYMENT_QUERIES_ROUTE: ApiRoute = { pattern: '/paymentQueries/payments', allow: 'GET', methods: { GET: 'paymentQuery', HEAD: 'paymentQuery' } };
const PAYMENT_QUERY_ROUTE: ApiRoute = { pattern: '/paymentQueries/payments/:ref', allow: 'GET', methods: { GET: 'paymentQuery', HEAD: 'paymentQuery' } };
const PAYMENT_QUERIES_PATH = PAYMENT_QUERIES_ROUTE.pattern.toLowerCase();
/** Each payment route's path before its ref, lower-cased. */
const PAYMENT_PREFIXES = PAYMENT_ROUTES.map((route) => [route.pattern.slice(0, -':ref'.length).toLowerCase(), route] as const);
export const API_ROUTES: readonly ApiRoute[] = [TOKENS_ROUTE, TOKEN_ROUTE, SALE_ROUTE, ...PAYMENT_ROUTES, PAYMENT_QUERIES_ROUTE, PAYMENT_QUERY_ROUTE];

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
  if (lower === SALE_PATH) return { route: SALE_ROUTE };
  if (lower === PAYMENT_QUERIES_PATH) return { route: PAYMENT_QUERIES_ROUTE };
  if (lower.startsWith(`${PAYMENT_QUERIES_PATH}/`)) {
    const rawRef = path.slice(PAYMENT_QUERIES_PATH.length + 1, end);
    return rawRef.length > 0 && !rawRef.includes('/') ? { route: PAYMENT_QUERY_ROUTE, rawRef } : undefined;
  }
  if (lower.startsWith('/payments/')) {
    for (const [prefix, route] of PAYMENT_PREFIXES) {
      if (!lower.startsWith(prefix)) continue;
      const rawRef = path.slice(prefix.length, end);
      return rawRef.length > 0 && !rawRef.includes('/') ? { route, rawRef } : undefined;
    }
  }
  return undefined;
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

/** The simulated API's routes, declared once: matching as Express's router would, a 405's Allow, the OpenAPI paths. */
import type { RefCodec, TokenRef } from '../infra/refs.js';
import type { ApiOperation } from '../wire/schemas.js';
import { HttpError } from './errors.js';

export interface ApiRoute {
  /** The route in Express's syntax (`:ref` is its path parameter). */
  readonly pattern: string;
  /** The methods it answers (HEAD wherever GET), each with its operation. */
  readonly methods: Readonly<Partial<Record<string, ApiOperation>>>;
  /** The methods it answers, for a 405's Allow header. */
  readonly allow: string;
  /** Its path parameter (`:ref`): the name in the OpenAPI document and what it is. */
  readonly param?: { readonly name: string; readonly description: string };
  /** Its operationId in the OpenAPI document when not its operation's name (an operation that serves two routes). */
  readonly operationId?: string;
}

type Declared = Partial<Record<'GET' | 'PUT' | 'POST' | 'DELETE', ApiOperation>>;

function route(pattern: string, declared: Declared, param?: ApiRoute['param'], operationId?: string): ApiRoute {
  const methods = declared.GET === undefined ? declared : { ...declared, HEAD: declared.GET };
  return { pattern, methods, allow: Object.keys(declared).join(', '), ...(param && { param }), ...(operationId !== undefined && { operationId }) };
}

const TOKEN_REF = { name: 'tokenRef', description: 'The opaque ref at the end of a token link (`tokens:token`, a per-field link or `tokens:conflicts`)' };
const PAYMENT_REF = {
  name: 'paymentRef',
  description:
    'The opaque ref that ends every link of a payment (`payments:refund`, `payments:partialRefund`, `payments:reversal`, `payments:events` end in the same one); the path names the action',
};
const PAYMENT_ID = { name: 'paymentId', description: 'The `paymentId` of a payment query\u2019s answer (the ref that ends the payment\u2019s links)' };

export const PAYMENT_QUERIES_ROUTE = route('/paymentQueries/payments', { GET: 'paymentQuery' });

/** In the order of the OpenAPI document (contracts 3.2, 4.4; decision 0057). */
export const API_ROUTES: readonly ApiRoute[] = [
  route('/tokens', { GET: 'queryTokens', POST: 'createToken' }),
  route('/tokens/:ref', { GET: 'getToken', PUT: 'updateToken', DELETE: 'deleteToken' }, TOKEN_REF),
  route('/payments/sales/migrateCardOnFile', { POST: 'sale' }),
  route('/payments/settlements/refunds/full/:ref', { POST: 'refund' }, PAYMENT_REF),
  route('/payments/settlements/refunds/partials/:ref', { POST: 'partialRefund' }, PAYMENT_REF),
  route('/payments/sales/reversals/:ref', { POST: 'reversal' }, PAYMENT_REF),
  route('/payments/events/:ref', { GET: 'paymentEvents' }, PAYMENT_REF),
  PAYMENT_QUERIES_ROUTE,
  route('/paymentQueries/payments/:ref', { GET: 'paymentQuery' }, PAYMENT_ID, 'paymentQueryById'),
];

/** The path of an operation's route up to its ref (`/tokens/` for getToken): where links to it point. */
export function linkPath(operation: ApiOperation): string {
  const { pattern } = API_ROUTES.find((r) => r.param !== undefined && r.operationId === undefined && Object.values(r.methods).includes(operation)) as ApiRoute;
  return pattern.slice(0, pattern.indexOf(':'));
}

export const TOKEN_PATH = linkPath('getToken');

/** Each route's path lower-cased: whole, or up to its path parameter. */
const MATCHERS = API_ROUTES.map((apiRoute) => {
  const at = apiRoute.pattern.indexOf(':');
  return { route: apiRoute, path: (at < 0 ? apiRoute.pattern : apiRoute.pattern.slice(0, at)).toLowerCase(), hasRef: at >= 0 };
});

/** A path's route as Express matches it: case-insensitive, one optional trailing slash, a ref without a slash (`rawRef`). */
export function matchApiPath(path: string): { route: ApiRoute; rawRef?: string } | undefined {
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  const lower = path.slice(0, end).toLowerCase();
  for (const { route, path: start, hasRef } of MATCHERS) {
    if (!hasRef) {
      if (lower === start) return { route };
    } else if (lower.startsWith(start)) {
      // No route's path starts another's, so the first that starts this path is the only candidate.
      const rawRef = path.slice(start.length, end);
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

/** 400 urlContainsInvalidValue: the URL holds `what`, and the problem says why. */
export function urlInvalid(what = 'an invalid percent-encoding', problem = 'The path is not valid percent-encoded UTF-8'): HttpError {
  return new HttpError('urlInvalid', `The URL holds ${what}`, { problems: [{ errorName: 'fieldHasInvalidValue', message: problem }] });
}

const REF_REFUSALS = {
  token: { problem: 'tokenId is not a valid token reference', gone: 'The token does not exist, has expired or was deleted' },
  payment: { problem: 'The path does not hold a valid payment reference', gone: 'The payment does not exist' },
};

/** The URL's decrypted ref: undecryptable → 400; another tenant's → 404, as for one that does not exist. */
export function ownRef<P extends string>(refs: RefCodec<P>, req: { ref: string | undefined; tenant: string }, kind: keyof typeof REF_REFUSALS): TokenRef<P> {
  const ref = refs.decode(req.ref ?? '');
  if (!ref) throw urlInvalid(`an invalid ${kind} reference`, REF_REFUSALS[kind].problem);
  if (ref.tenant !== req.tenant) throw new HttpError('refOfAnotherTenant', REF_REFUSALS[kind].gone);
  return ref;
}

/**
 * The token service's operations: POST and GET /tokens (create, query) and GET/PUT/DELETE /tokens/{ref}.
 * Parse, call the vault, present.
 */
import type { CreateOutcome, TokenQuery, TokenUpdate, Vault } from '../../domain/vault.js';
import type { Token } from '../../domain/token.js';
import type { RefCodec, RefPurpose, TokenRef } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { createTokenBody, toBillingAddress, toCreateInput, updateBodies } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import type { FieldProblem } from '../../wire/problems.js';
import { HttpError, queryRefusal } from '../errors.js';
import { asksUnmasked } from '../media.js';
import { tokenHref, tokenJson, tokenListJson, type LinkContext, type ReadCache, type TokenView } from '../present.js';
import type { ApiRequest, ApiResponse } from './types.js';

export interface TokenOperationsDeps {
  vault: Vault;
  refs: RefCodec;
  tokenMediaType: string;
  /** GET answers, kept per token until it changes. */
  reads: ReadCache;
  /**
   * 200 answers to a create of a card already on file, kept the same way: a client that re-tokenizes on
   * every checkout gets one string, and the journal keeps one string for all those answers, not one each.
   */
  existing: ReadCache;
  /** Whether the credential may detokenize (`detokenize: true` in fixtures; decision 0031). */
  mayDetokenize: (tenant: string) => boolean;
}

const CREATE_STATUS: Record<CreateOutcome, number> = { created: 201, existing: 200, conflict: 409 };

/** The PUT body for a per-field ref, validated against that field's shape (`$` is the body). */
function toUpdate(field: Exclude<RefPurpose, 'token' | 'conflicts'>, body: unknown): TokenUpdate {
  switch (field) {
    case 'cardExpiryDate': {
      const { month, year } = parseBody(updateBodies.cardExpiryDate, body, field);
      return { field, value: { month, year } };
    }
    case 'billingAddress':
      return { field, value: toBillingAddress(parseBody(updateBodies.billingAddress, body, field)) };
    default:
      return { field, value: parseBody(updateBodies[field], body, field) };
  }
}

/** A method the ref's link does not offer: 405 with the methods it does. */
function wrongMethod(allow: string): HttpError {
  return new HttpError('methodNotAllowed', `This token link allows ${allow} only`, { headers: { Allow: allow } });
}

const QUERY_PARAMS = ['namespace', 'tokenId'] as const;

/**
 * `?namespace=&tokenId=` of GET /tokens: at least one, each given once and not empty; other parameters are
 * ignored, as unknown body fields are (decision 0031). Every problem at once, as 400 urlContainsInvalidValue.
 */
function readTokenQuery(text: string): TokenQuery {
  const params = new URLSearchParams(text);
  const query: TokenQuery = {};
  const problems: FieldProblem[] = [];
  for (const name of QUERY_PARAMS) {
    const values = params.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1) problems.push({ errorName: 'fieldHasInvalidValue', message: `${name} must be given once` });
    else if (values[0] === '') problems.push({ errorName: 'fieldIsEmpty', message: `${name} must not be empty` });
    else query[name] = values[0] as string;
  }
  if (problems.length === 0 && query.namespace === undefined && query.tokenId === undefined) {
    problems.push({ errorName: 'fieldIsMissing', message: 'namespace or tokenId is required' });
  }
  if (problems.length > 0) throw queryRefusal('GET /tokens', problems);
  return query;
}

/**
 * The decrypted ref of the URL, with the caller's tenant: undecryptable → 400; another tenant's → 404
 * (before any method check, so a foreign ref reveals nothing about what it points to).
 */
function refOf(refs: RefCodec, req: ApiRequest): TokenRef {
  const text = req.ref ?? '';
  // The tokens:networkToken link points here; network tokens are not simulated.
  if (text === 'network') throw new HttpError('endpointNotFound', 'Network tokens are not simulated by token-sim');
  const ref = refs.decode(text);
  if (!ref) {
    throw new HttpError('urlInvalid', 'The URL holds an invalid token reference', {
      problems: [{ errorName: 'fieldHasInvalidValue', message: 'tokenId is not a valid token reference' }],
    });
  }
  if (ref.tenant !== req.tenant) throw new HttpError('refOfAnotherTenant', 'The token does not exist, has expired or was deleted');
  return ref;
}

/**
 * Whether the request asks for the detokenized view (`Accept: <token type>; masked=false`); a credential
 * not allowed to detokenize gets 403 merchantIsNotConfigured, before the URL is looked at.
 */
function unmaskedFor(deps: TokenOperationsDeps, req: ApiRequest): boolean {
  const accept = req.headers.accept;
  if (!asksUnmasked(Array.isArray(accept) ? accept.join(',') : accept, deps.tokenMediaType)) return false;
  if (!deps.mayDetokenize(req.tenant)) {
    throw new HttpError('detokenizeNotAllowed', 'These credentials are not configured to detokenize card numbers (masked=false)');
  }
  return true;
}

const link = (deps: TokenOperationsDeps, req: ApiRequest): LinkContext => ({ baseUrl: req.baseUrl, refs: deps.refs });

export function createToken(deps: TokenOperationsDeps, req: ApiRequest): ApiResponse {
  const mediaType = deps.tokenMediaType;
  const input = toCreateInput(parseBody(createTokenBody, parseJsonText(req.body)));
  const { outcome, token } = deps.vault.create(req.tenant, input);
  const ctx = link(deps, req);
  const view: TokenView = outcome === 'conflict' && token.pendingConflict ? { conflict: token.pendingConflict } : { created: outcome === 'created' };
  return {
    status: CREATE_STATUS[outcome],
    mediaType,
    headers: { Location: tokenHref(ctx, token), Accept: mediaType },
    body: outcome === 'existing' ? deps.existing.tokenJson(token, ctx, view) : tokenJson(token, ctx, view),
  };
}

export function getToken(deps: TokenOperationsDeps, req: ApiRequest): ApiResponse {
  const unmasked = unmaskedFor(deps, req);
  const ref = refOf(deps.refs, req);
  if (ref.purpose !== 'token' && ref.purpose !== 'conflicts') throw wrongMethod('PUT');
  const token: Token = ref.purpose === 'conflicts' ? deps.vault.getConflict(ref.tenant, ref.tokenId) : deps.vault.get(ref.tenant, ref.tokenId);
  const conflict = ref.purpose === 'conflicts' ? token.pendingConflict : undefined;
  const view: TokenView = conflict ? { retrieved: true, conflict } : { retrieved: true };
  if (unmasked) view.unmasked = true;
  return { status: 200, mediaType: deps.tokenMediaType, body: deps.reads.tokenJson(token, link(deps, req), view) };
}

export function queryTokens(deps: TokenOperationsDeps, req: ApiRequest): ApiResponse {
  const view: TokenView = unmaskedFor(deps, req) ? { retrieved: true, unmasked: true } : { retrieved: true };
  // Not a use (contract 1.5): the vault's query moves no expiry.
  const tokens = deps.vault.query(req.tenant, readTokenQuery(req.query));
  const ctx = link(deps, req);
  return { status: 200, mediaType: deps.tokenMediaType, body: tokenListJson(tokens, (token) => deps.reads.tokenJson(token, ctx, view)) };
}

export function updateToken(deps: TokenOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps.refs, req);
  if (ref.purpose === 'token') throw wrongMethod('GET, DELETE');
  if (ref.purpose === 'conflicts') deps.vault.resolveConflict(ref.tenant, ref.tokenId);
  else deps.vault.update(ref.tenant, ref.tokenId, toUpdate(ref.purpose, parseJsonText(req.body)));
  return { status: 204 };
}

export function deleteToken(deps: TokenOperationsDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps.refs, req);
  if (ref.purpose !== 'token') throw wrongMethod(ref.purpose === 'conflicts' ? 'GET, PUT' : 'PUT');
  deps.vault.delete(ref.tenant, ref.tokenId);
  return { status: 204 };
}

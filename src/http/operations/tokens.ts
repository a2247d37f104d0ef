/** The token service's operations: parse, call the vault, present. */
import type { CreateOutcome, TokenUpdate } from '../../domain/vault.js';
import type { Token } from '../../domain/token.js';
import type { RefCodec, RefPurpose, TokenRef } from '../../infra/refs.js';
import { parseJsonText } from '../../wire/json.js';
import { createTokenBody, toBillingAddress, toCreateInput, updateBodies } from '../../wire/schemas.js';
import { parseBody } from '../../wire/validation.js';
import { HttpError, readQuery } from '../errors.js';
import { asksUnmasked } from '../media.js';
import { tokenHref, tokenJson, type LinkContext, type TokenView } from '../present.js';
import { ownRef } from '../routes.js';
import type { ApiRequest, ApiResponse, OperationDeps } from './types.js';

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

function wrongMethod(allow: string): HttpError {
  return new HttpError('methodNotAllowed', `This token link allows ${allow} only`, { headers: { Allow: allow } });
}

/** The URL's own ref, checked before any method check, so a foreign ref reveals nothing about what it points to. */
function refOf(refs: RefCodec, req: ApiRequest): TokenRef {
  // The tokens:networkToken link points here; network tokens are not simulated.
  if (req.ref === 'network') throw new HttpError('endpointNotFound', 'Network tokens are not simulated by token-sim');
  return ownRef(refs, req, 'token');
}

/** Whether the request asks for the detokenized view (decision 0031): 403 before the URL is looked at when not allowed. */
function unmaskedFor(deps: OperationDeps, req: ApiRequest): boolean {
  const accept = req.headers.accept;
  if (!asksUnmasked(Array.isArray(accept) ? accept.join(',') : accept, deps.media.token)) return false;
  if (!deps.mayDetokenize(req.tenant)) {
    throw new HttpError('detokenizeNotAllowed', 'These credentials are not configured to detokenize card numbers (masked=false)');
  }
  return true;
}

const link = (deps: OperationDeps, req: ApiRequest): LinkContext => ({ baseUrl: req.baseUrl, refs: deps.refs });

export function createToken(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const mediaType = deps.media.token;
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

export function getToken(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const unmasked = unmaskedFor(deps, req);
  const ref = refOf(deps.refs, req);
  if (ref.purpose !== 'token' && ref.purpose !== 'conflicts') throw wrongMethod('PUT');
  const token: Token = ref.purpose === 'conflicts' ? deps.vault.getConflict(ref.tenant, ref.tokenId) : deps.vault.get(ref.tenant, ref.tokenId);
  const conflict = ref.purpose === 'conflicts' ? token.pendingConflict : undefined;
  const view: TokenView = conflict ? { retrieved: true, conflict } : { retrieved: true };
  if (unmasked) view.unmasked = true;
  return { status: 200, mediaType: deps.media.token, body: deps.reads.tokenJson(token, link(deps, req), view) };
}

export function queryTokens(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const view: TokenView = unmaskedFor(deps, req) ? { retrieved: true, unmasked: true } : { retrieved: true };
  // Not a use (contract 1.5): the vault's query moves no expiry.
  // `?namespace=&tokenId=`: other parameters are ignored, as unknown body fields are (decision 0031).
  const tokens = deps.vault.query(req.tenant, readQuery(req.query, ['namespace', 'tokenId'], 'GET /tokens', 'namespace or tokenId is required'));
  const ctx = link(deps, req);
  const listed = tokens.map((token) => deps.reads.tokenJson(token, ctx, view)).join(',');
  return { status: 200, mediaType: deps.media.token, body: `{"_embedded":{"tokens":[${listed}]}}` };
}

export function updateToken(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps.refs, req);
  if (ref.purpose === 'token') throw wrongMethod('GET, DELETE');
  if (ref.purpose === 'conflicts') deps.vault.resolveConflict(ref.tenant, ref.tokenId);
  else deps.vault.update(ref.tenant, ref.tokenId, toUpdate(ref.purpose, parseJsonText(req.body)));
  return { status: 204 };
}

export function deleteToken(deps: OperationDeps, req: ApiRequest): ApiResponse {
  const ref = refOf(deps.refs, req);
  if (ref.purpose !== 'token') throw wrongMethod(ref.purpose === 'conflicts' ? 'GET, PUT' : 'PUT');
  deps.vault.delete(ref.tenant, ref.tokenId);
  return { status: 204 };
}

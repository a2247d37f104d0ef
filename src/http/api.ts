/**
 * The simulated API's request pipeline, the one path of every API request (lane.ts hands them over):
 * authentication, header checks, body, scenario step, operation (its row below), one error renderer,
 * the journal and the request log (exchange.ts). The listener (lane.ts) only finds the route (routes.ts) and
 * hands over node's request and response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Authenticate } from './auth.js';
import { readBody } from './body.js';
import { HttpError } from './errors.js';
import { begin, fail, send, type Exchange, type ExchangeDeps } from './exchange.js';
import { schemeOf } from './guard.js';
import type { ApiRoute } from './routes.js';
import { checkHeaders, type HeaderRules, type MediaTypes } from './media.js';
import { paymentEvents, paymentQuery, partialRefund, refund, reversal, sale } from './operations/payments.js';
import { createToken, deleteToken, getToken, queryTokens, updateToken } from './operations/tokens.js';
import type { ApiResponse, Operation, OperationDeps } from './operations/types.js';
import type { ApiOperation } from '../wire/schemas.js';
import { decideScenario, type ScenarioAction, type ScenarioStepDeps } from './scenario-step.js';
import type { LostAnswer } from '../scenarios/schema.js';
import type { Replica } from '../store/redis/replica.js';

export interface ApiDeps extends ExchangeDeps {
  operations: OperationDeps;
  authenticate: Authenticate;
  baseUrl: string | undefined;
  /** Where links point when neither --base-url nor a Host header says. */
  fallbackHost: string;
  scenario: ScenarioStepDeps;
  /** Sockets held open by `noResponse` faults, released at shutdown. */
  heldSockets: Set<Socket>;
  /**
   * With a shared store (decision 0039): runs the scenario step and the operation as one unit that commits
   * before anything is answered. Absent (the memory store): both run straight away.
   */
  gate?: Gate;
}

/** Runs a unit of a tenant's work and commits it. */
export type Gate = Pick<Replica, 'run'>;

/** An operation: the Accept and Content-Type it takes, whether it reads a body, and the work. */
interface ApiOperationRow extends HeaderRules {
  readsBody?: true;
  run: Operation;
}

function operationsFor(media: MediaTypes): Readonly<Record<ApiOperation, ApiOperationRow>> {
  const read: HeaderRules = { accept: [media.token] };
  const write = { accept: [media.token], contentType: media.token, readsBody: true } as const;
  const payments: HeaderRules = { contentType: media.saleRequest, accept: [media.saleResponse, media.saleRequest] };
  return {
    createToken: { ...write, run: createToken },
    getToken: { ...read, run: getToken },
    updateToken: { ...write, run: updateToken },
    deleteToken: { ...read, run: deleteToken },
    queryTokens: { ...read, run: queryTokens },
    sale: { ...payments, readsBody: true, run: sale },
    // The follow-ups of a sale take the sale's media types (contract 3.2); a refund or reversal has no body.
    refund: { ...payments, run: refund },
    partialRefund: { ...payments, readsBody: true, run: partialRefund },
    reversal: { ...payments, run: reversal },
    paymentEvents: { accept: payments.accept, run: paymentEvents },
    // Payment queries (contract 4.4) have a media type of their own.
    paymentQuery: { accept: [media.paymentQueries], run: paymentQuery },
  };
}

export const createApi = (deps: ApiDeps): Api => new Api(deps);

export class Api {
  private readonly operations: Readonly<Record<ApiOperation, ApiOperationRow>>;

  constructor(private readonly deps: ApiDeps) {
    this.operations = operationsFor(deps.operations.media);
  }

  /** Answers a request routed to `route`; `ref` is the decoded path parameter. */
  serve(req: IncomingMessage, res: ServerResponse, route: ApiRoute, ref: string | undefined): void {
    const { deps } = this;
    const name = route.methods[req.method ?? ''];
    const ex = begin(deps, req, res, name ?? 'unknown');
    try {
      if (name === undefined) {
        throw new HttpError('methodNotAllowed', `${req.method ?? ''} is not allowed here; use ${route.allow}`, { headers: { Allow: route.allow } });
      }
      const tenant = deps.authenticate(req.headers.authorization);
      if (tenant === undefined) {
        throw new HttpError('accessDenied', 'The credentials are missing, malformed or wrong', { headers: { 'WWW-Authenticate': 'Basic realm="token-sim"' } });
      }
      ex.tenant = tenant;
      const op = this.operations[name];
      checkHeaders(op, req.headers);
      if (!op.readsBody) {
        proceed(deps, ex, op, ref);
        return;
      }
      readBody(req).then(
        (body) => {
          ex.body = body.toString('utf8');
          try {
            proceed(deps, ex, op, ref);
          } catch (err) {
            fail(deps, ex, err);
          }
        },
        (err: unknown) => fail(deps, ex, err),
      );
    } catch (err) {
      fail(deps, ex, err);
    }
  }

  /** Answers a request for `route` (when one matched) with an error found while routing it. */
  serveError(req: IncomingMessage, res: ServerResponse, route: ApiRoute | undefined, err: unknown): void {
    fail(this.deps, begin(this.deps, req, res, route?.methods[req.method ?? ''] ?? 'unknown'), err);
  }
}

/** After the body: the scenario step (maybe late), then the operation. */
function proceed(deps: ApiDeps, ex: Exchange, op: ApiOperationRow, ref: string | undefined): void {
  if (deps.gate) {
    proceedShared(deps, deps.gate, ex, op, ref);
    return;
  }
  const decision = decideScenario(deps, ex, ref);
  if (decision) ex.rule = decision.rule;
  if (!decision || decision.delayMs <= 0) {
    perform(deps, ex, op, ref, decision?.action);
    return;
  }
  setTimeout(() => {
    try {
      perform(deps, ex, op, ref, decision.action);
    } catch (err) {
      fail(deps, ex, err);
    }
  }, decision.delayMs);
}

function perform(deps: ApiDeps, ex: Exchange, op: ApiOperationRow, ref: string | undefined, action: ScenarioAction | undefined): void {
  if (action?.kind === 'fault') drop(deps, ex, action.fault);
  else if (action?.kind === 'error') sendScripted(deps, ex, action);
  else answer(deps, ex, operate(deps, ex, op, ref, action), action?.lost);
}

/** A socket fault instead of an answer: the connection reset, or held open until shutdown. */
function drop(deps: ApiDeps, ex: Exchange, fault: 'connectionReset' | 'noResponse'): void {
  ex.fault = fault;
  const socket = ex.req.socket;
  if (fault === 'connectionReset') socket.destroy();
  else {
    deps.heldSockets.add(socket);
    socket.once('close', () => deps.heldSockets.delete(socket));
  }
}

type Scripted = Omit<Extract<ScenarioAction, { kind: 'error' }>, 'kind'>;

function sendScripted(deps: ApiDeps, ex: Exchange, { status, errorName, message, headers }: Scripted): void {
  ex.errorName = errorName;
  send(deps, ex, { status, ...(headers && { headers }), body: JSON.stringify({ errorName, message }) });
}

const LOST_AS_ERROR: Scripted = { status: 500, errorName: 'internalErrorOccurred', message: 'An internal error occurred' };

/** The answer of work done: sent, or (a `lostAnswer` rule) lost after the work, the journal keeping both. */
function answer(deps: ApiDeps, ex: Exchange, response: ApiResponse, lost: LostAnswer | undefined): void {
  if (lost === undefined) {
    send(deps, ex, response);
    return;
  }
  ex.lost = { as: lost, response };
  if (lost === 'internalError') sendScripted(deps, ex, LOST_AS_ERROR);
  else drop(deps, ex, lost);
}
function operate(deps: ApiDeps, ex: Exchange, op: ApiOperationRow, ref: string | undefined, action: Extract<ScenarioAction, { kind: 'proceed' }> | undefined): ApiResponse {
  const { req } = ex;
  const host = req.headers.host;
  return op.run(deps.operations, {
    query: (req.url ?? '').slice(ex.path.length + 1),
    ref,
    headers: req.headers,
    body: ex.body ?? '',
    tenant: ex.tenant ?? '',
    baseUrl: deps.baseUrl ?? `${schemeOf(req)}://${host ?? deps.fallbackHost}`,
    ...(action?.saleOverride && { saleOverride: action.saleOverride }),
    ...(action?.paymentScript && { paymentScript: action.paymentScript }),
  });
}

/**
 * With a shared store: the scenario step and the operation run as one unit, committed before the answer;
 * a scenario's delay then holds the answer (the change is already made).
 */
function proceedShared(deps: ApiDeps, gate: Gate, ex: Exchange, op: ApiOperationRow, ref: string | undefined): void {
  gate
    .run(ex.tenant ?? '', () => {
      const decision = decideScenario(deps, ex, ref);
      const action = decision?.action;
      if (action?.kind === 'fault' || action?.kind === 'error') return { decision };
      try {
        return { decision, response: operate(deps, ex, op, ref, action) };
      } catch (error) {
        return { decision, error };
      }
    })
    .then(
      (outcome) => {
        if (!outcome.ok) {
          fail(deps, ex, outcome.error);
          return;
        }
        const { decision, response, error } = outcome.value;
        if (decision) ex.rule = decision.rule;
        const reply = (): void => {
          const action = decision?.action;
          if (action?.kind === 'fault' || action?.kind === 'error') perform(deps, ex, op, ref, action);
          else if (response) answer(deps, ex, response, action?.lost);
          else fail(deps, ex, error);
        };
        if (decision && decision.delayMs > 0) setTimeout(reply, decision.delayMs);
        else reply();
      },
      (err: unknown) => fail(deps, ex, err),
    );
}

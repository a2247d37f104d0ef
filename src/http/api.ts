/**
 * The simulated API's request pipeline, the one path of every API request (lane.ts hands them over):
 * authentication, header checks, body, scenario step, operation (operations/dispatch.ts), one error renderer,
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
import { runOperation, type OperationDeps } from './operations/dispatch.js';
import type { ApiResponse } from './operations/types.js';
import type { ApiOperation } from '../wire/schemas.js';
import { decideScenario, type ScenarioAction, type ScenarioInput, type ScenarioStepDeps } from './scenario-step.js';
import type { LostAnswer } from '../scenarios/schema.js';

export interface ApiDeps extends ExchangeDeps {
  operations: OperationDeps;
  media: MediaTypes;
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

/** Runs a unit of a tenant's work and commits it (store/redis/replica.ts). */
export interface Gate {
  run<T>(tenant: string, work: () => T): Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
}

/** The Accept and Content-Type an operation takes, and whether it reads a body. */
interface OperationRules extends HeaderRules {
  readsBody?: true;
}

function rulesFor(media: MediaTypes): Readonly<Record<ApiOperation, OperationRules>> {
  const read: HeaderRules = { accept: [media.token] };
  const write: OperationRules = { accept: [media.token], contentType: media.token, readsBody: true };
  const payments: HeaderRules = { contentType: media.saleRequest, accept: [media.saleResponse, media.saleRequest] };
  return {
    createToken: write,
    getToken: read,
    updateToken: write,
    deleteToken: read,
    queryTokens: read,
    sale: { ...payments, readsBody: true },
    // The follow-ups of a sale take the sale's media types (contract 3.2); a refund or reversal has no body.
    refund: payments,
    partialRefund: { ...payments, readsBody: true },
    reversal: payments,
    paymentEvents: { accept: payments.accept },
    // Payment queries (contract 4.4) have a media type of their own.
    paymentQuery: { accept: [media.paymentQueries] },
  };
}

export const createApi = (deps: ApiDeps): Api => new Api(deps);

export class Api {
  private readonly rules: Readonly<Record<ApiOperation, OperationRules>>;

  constructor(private readonly deps: ApiDeps) {
    this.rules = rulesFor(deps.media);
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
      const rules = this.rules[name];
      checkHeaders(rules, req.headers);
      if (!rules.readsBody) {
        proceed(deps, ex, name, ref);
        return;
      }
      readBody(req).then(
        (body) => {
          ex.body = body.toString('utf8');
          try {
            proceed(deps, ex, name, ref);
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

/** What a scenario rule may match on; the query string only for token and payment queries. */
function scenarioInput(ex: Exchange, name: ApiOperation, ref: string | undefined): ScenarioInput {
  const input = { tenant: ex.tenant ?? '', operation: name, body: ex.body ?? '', ref };
  return name === 'queryTokens' || name === 'paymentQuery' ? { ...input, query: (ex.req.url ?? '').slice(ex.path.length + 1) } : input;
}

/** After the body: the scenario step (maybe late), then the operation. */
function proceed(deps: ApiDeps, ex: Exchange, name: ApiOperation, ref: string | undefined): void {
  if (deps.gate) {
    proceedShared(deps, deps.gate, ex, name, ref);
    return;
  }
  const decision = decideScenario(deps.scenario, scenarioInput(ex, name, ref));
  if (decision) ex.rule = decision.rule;
  if (!decision || decision.delayMs <= 0) {
    perform(deps, ex, name, ref, decision?.action);
    return;
  }
  setTimeout(() => {
    try {
      perform(deps, ex, name, ref, decision.action);
    } catch (err) {
      fail(deps, ex, err);
    }
  }, decision.delayMs);
}

function perform(deps: ApiDeps, ex: Exchange, name: ApiOperation, ref: string | undefined, action: ScenarioAction | undefined): void {
  if (action?.kind === 'fault') drop(deps, ex, action.fault);
  else if (action?.kind === 'error') sendScripted(deps, ex, action);
  else answer(deps, ex, operate(deps, ex, name, ref, action), action?.lost);
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
function operate(deps: ApiDeps, ex: Exchange, name: ApiOperation, ref: string | undefined, action: Extract<ScenarioAction, { kind: 'proceed' }> | undefined): ApiResponse {
  const { req } = ex;
  const host = req.headers.host;
  return runOperation(deps.operations, name, {
    method: req.method ?? 'GET',
    path: ex.path,
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
function proceedShared(deps: ApiDeps, gate: Gate, ex: Exchange, name: ApiOperation, ref: string | undefined): void {
  const facts = scenarioInput(ex, name, ref);
  gate
    .run(ex.tenant ?? '', () => {
      const decision = decideScenario(deps.scenario, facts);
      const action = decision?.action;
      if (action?.kind === 'fault' || action?.kind === 'error') return { decision };
      try {
        return { decision, response: operate(deps, ex, name, ref, action) };
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
          if (action?.kind === 'fault' || action?.kind === 'error') perform(deps, ex, name, ref, action);
          else if (response) answer(deps, ex, response, action?.lost);
          else fail(deps, ex, error);
        };
        if (decision && decision.delayMs > 0) setTimeout(reply, decision.delayMs);
        else reply();
      },
      (err: unknown) => fail(deps, ex, err),
    );
}

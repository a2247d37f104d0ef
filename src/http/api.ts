/** The simulated API's one request path: the listener and the pipeline (decisions 0046, 0064, 0069). */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Authenticate } from './auth.js';
import { readBody } from './body.js';
import { HttpError } from './errors.js';
import { Exchange, type ExchangeDeps } from './exchange.js';
import { schemeOf, type Guard } from './guard.js';
import { decodeRef, matchApiPath, type ApiRoute } from './routes.js';
import { checkHeaders, type HeaderRules, type MediaTypes } from './media.js';
import { paymentEvents, paymentQuery, partialRefund, refund, reversal, sale } from './operations/payments.js';
import { createToken, deleteToken, getToken, queryTokens, updateToken } from './operations/tokens.js';
import type { ApiResponse, Operation, OperationDeps } from './operations/types.js';
import type { ApiOperation } from '../wire/schemas.js';
import { decideScenario, type ScenarioAction, type ScenarioDecision, type ScenarioStepDeps } from './scenario-step.js';
import type { Replica } from '../store/redis/replica.js';
import { redirectToUi, wantsHtml } from './app.js';

export interface ApiDeps extends ExchangeDeps {
  operations: OperationDeps;
  authenticate: Authenticate;
  baseUrl: string | undefined;
  /** Where links point when neither --base-url nor a Host header says. */
  fallbackHost: string;
  scenario: ScenarioStepDeps;
  /** Sockets held open by `noResponse` faults, released at shutdown. */
  heldSockets: Set<Socket>;
  /** With a shared store (decision 0039): runs the scenario step and the operation as one committed unit. */
  gate?: Pick<Replica, 'run'>;
}

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

/** A shared store's unit's outcome: the decision, and the work's answer or error (none for a fault or scripted error). */
type Done = { decision: ScenarioDecision | undefined; response?: ApiResponse; error?: unknown };

export class Api {
  private readonly operations: Readonly<Record<ApiOperation, ApiOperationRow>>;

  constructor(private readonly deps: ApiDeps) {
    this.operations = operationsFor(deps.operations.media);
  }

  /** Answers a request routed to `route`; `rawRef` is its path parameter, not yet percent-decoded. */
  serve(req: IncomingMessage, res: ServerResponse, route: ApiRoute, rawRef: string | undefined): void {
    const { deps } = this;
    const name = route.methods[req.method ?? ''];
    const ex = new Exchange(deps, req, res, name ?? 'unknown');
    try {
      const ref = rawRef === undefined ? undefined : decodeRef(rawRef);
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
        this.proceed(ex, op, ref);
        return;
      }
      readBody(req).then(
        (body) => {
          ex.body = body.toString('utf8');
          try {
            this.proceed(ex, op, ref);
          } catch (err) {
            ex.fail(err);
          }
        },
        (err: unknown) => ex.fail(err),
      );
    } catch (err) {
      ex.fail(err);
    }
  }

  /** Answers a request for `route` (when one matched) with an error found while routing it. */
  serveError(req: IncomingMessage, res: ServerResponse, route: ApiRoute | undefined, err: unknown): void {
    new Exchange(this.deps, req, res, route?.methods[req.method ?? ''] ?? 'unknown').fail(err);
  }

  /** The scenario step, then the operation; with a shared store, one unit committed before the answer (decision 0039). */
  private proceed(ex: Exchange, op: ApiOperationRow, ref: string | undefined): void {
    const { deps } = this;
    if (!deps.gate) {
      this.reply(ex, op, ref, decideScenario(deps, ex, ref), undefined);
      return;
    }
    deps.gate
      .run(ex.tenant ?? '', (): Done => {
        const decision = decideScenario(deps, ex, ref);
        const action = decision?.action;
        if (action?.kind === 'fault' || action?.kind === 'error') return { decision };
        try {
          return { decision, response: this.operate(ex, op, ref, action) };
        } catch (error) {
          return { decision, error };
        }
      })
      .then(
        (outcome) => (outcome.ok ? this.reply(ex, op, ref, outcome.value.decision, outcome.value) : ex.fail(outcome.error)),
        (err: unknown) => ex.fail(err),
      );
  }

  /** Carries out the decision after its delay; the work is done then unless already `done`. */
  private reply(ex: Exchange, op: ApiOperationRow, ref: string | undefined, decision: ScenarioDecision | undefined, done: Done | undefined): void {
    if (decision) ex.rule = decision.rule;
    if (!decision || decision.delayMs <= 0) {
      this.perform(ex, op, ref, decision?.action, done);
      return;
    }
    setTimeout(() => {
      try {
        this.perform(ex, op, ref, decision.action, done);
      } catch (err) {
        ex.fail(err);
      }
    }, decision.delayMs);
  }

  /** A fault, a scripted error, or the work's answer: sent, or (a `lostAnswer` rule) lost, the journal keeping both. */
  private perform(ex: Exchange, op: ApiOperationRow, ref: string | undefined, action: ScenarioAction | undefined, done: Done | undefined): void {
    if (action?.kind === 'fault') return this.drop(ex, action.fault);
    if (action?.kind === 'error') return sendScripted(ex, action);
    if (done && !done.response) return ex.fail(done.error);
    const response = done?.response ?? this.operate(ex, op, ref, action);
    if (action?.lost === undefined) return ex.send(response);
    ex.lost = { as: action.lost, response };
    if (action.lost === 'internalError') sendScripted(ex, LOST_AS_ERROR);
    else this.drop(ex, action.lost);
  }

  /** A socket fault instead of an answer: the connection reset, or held open until shutdown. */
  private drop(ex: Exchange, fault: 'connectionReset' | 'noResponse'): void {
    ex.fault = fault;
    const socket = ex.req.socket;
    if (fault === 'connectionReset') socket.destroy();
    else {
      this.deps.heldSockets.add(socket);
      socket.once('close', () => this.deps.heldSockets.delete(socket));
    }
  }

  private operate(ex: Exchange, op: ApiOperationRow, ref: string | undefined, action: Extract<ScenarioAction, { kind: 'proceed' }> | undefined): ApiResponse {
    const { deps } = this;
    const { req } = ex;
    return op.run(deps.operations, {
      query: (req.url ?? '').slice(ex.path.length + 1),
      ref,
      headers: req.headers,
      body: ex.body ?? '',
      tenant: ex.tenant ?? '',
      baseUrl: deps.baseUrl ?? `${schemeOf(req)}://${req.headers.host ?? deps.fallbackHost}`,
      ...(action?.saleOverride && { saleOverride: action.saleOverride }),
      ...(action?.paymentScript && { paymentScript: action.paymentScript }),
    });
  }
}

type Scripted = Omit<Extract<ScenarioAction, { kind: 'error' }>, 'kind'>;

function sendScripted(ex: Exchange, { status, errorName, message, headers }: Scripted): void {
  ex.errorName = errorName;
  ex.send({ status, ...(headers && { headers }), body: JSON.stringify({ errorName, message }) });
}

const LOST_AS_ERROR: Scripted = { status: 500, errorName: 'internalErrorOccurred', message: 'An internal error occurred' };

/** The path of a request target as a router reads it: without query or fragment; an absolute-form target's path. */
export function pathOf(url: string): string {
  let end = url.length;
  const query = url.indexOf('?');
  if (query !== -1) end = query;
  const hash = url.indexOf('#');
  if (hash !== -1 && hash < end) end = hash;
  const path = url.slice(0, end);
  if (path.charCodeAt(0) === 47) return path;
  return URL.canParse(url) ? new URL(url).pathname : path;
}

/** Whether a path is the control API's: `/_sim` and below, in any case (as Express mounts it). */
const isControlPath = (path: string): boolean => path.length >= 5 && path.slice(0, 5).toLowerCase() === '/_sim' && (path.length === 5 || path.charCodeAt(5) === 47);

export function createListener(api: Api, guard: Guard, control: (req: IncomingMessage, res: ServerResponse) => void): RequestListener {
  return (req, res) => {
    const path = pathOf(req.url ?? '');
    if (isControlPath(path)) {
      control(req, res);
      return;
    }
    const match = matchApiPath(path);
    const refused = guard.checkHost(req.headers.host);
    if (refused) {
      api.serveError(req, res, match?.route, refused);
      return;
    }
    if (match) {
      api.serve(req, res, match.route, match.rawRef);
      return;
    }
    // A browser's root is the dashboard; not an API route (decision 0035).
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req)) {
      redirectToUi(res);
      return;
    }
    // Answered (journal, log, headers) like any API request.
    api.serveError(req, res, undefined, new HttpError('endpointNotFound', `There is no endpoint at ${req.method} ${path}`));
  };
}

/**
 * Applies the scenario rule that matches a request: delay, scripted error, socket fault, or a sale
 * outcome and risk factors handed on to the sale. Runs after authentication, headers and body reading.
 */
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../domain/ports.js';
import type { SaleOverride } from '../domain/sale.js';
import type { Vault } from '../domain/vault.js';
import type { RefCodec } from '../infra/refs.js';
import type { RequestFacts, ScenarioEngine } from '../scenarios/engine.js';
import type { Rule } from '../scenarios/schema.js';
import { rawBodyOf } from './body.js';
import { sendJson } from './send.js';

export interface ScenarioActionDeps {
  engine: ScenarioEngine;
  clock: Clock;
  vault: Vault;
  refs: RefCodec;
  tenantOf: (req: Request) => string;
  /** Sockets held open by `noResponse`, released at shutdown. */
  heldSockets: Set<Socket>;
}

type Operation = RequestFacts['operation'];

/** The scripted sale outcome for this request, if a rule set one. */
export const saleOverrideOf = (res: Response): SaleOverride | undefined => res.locals.saleOverride as SaleOverride | undefined;

function at(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function bodyOf(req: Request): unknown {
  const body = rawBodyOf(req);
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function factsOf(deps: ScenarioActionDeps, req: Request, operation: Operation, tenant: string): RequestFacts {
  const facts: RequestFacts = { operation, username: tenant };
  const tokenFacts = (tokenId: string | undefined): void => {
    const token = tokenId === undefined ? undefined : deps.vault.peek(tenant, tokenId);
    if (!token) return;
    facts.entity = token.entity;
    if (token.namespace !== undefined) facts.namespace = token.namespace;
    facts.cardNumber = token.card.number;
    facts.cardHolderName = token.card.holderName;
  };
  const refTokenId = (text: string | undefined): string | undefined => {
    const ref = text === undefined ? undefined : deps.refs.decode(text);
    return ref && ref.tenant === tenant ? ref.tokenId : undefined;
  };
  const body = bodyOf(req);
  const assign = (key: 'entity' | 'namespace' | 'cardNumber' | 'cardHolderName' | 'currency' | 'transactionReference', v: unknown): void => {
    const s = str(v);
    if (s !== undefined) facts[key] = s;
  };

  if (operation === 'createToken') {
    assign('entity', at(body, 'merchant', 'entity'));
    assign('namespace', at(body, 'namespace'));
    assign('cardNumber', at(body, 'paymentInstrument', 'cardNumber'));
    assign('cardHolderName', at(body, 'paymentInstrument', 'cardHolderName'));
  } else if (operation === 'sale') {
    assign('entity', at(body, 'merchant', 'entity'));
    assign('currency', at(body, 'instruction', 'value', 'currency'));
    assign('transactionReference', at(body, 'transactionReference'));
    const amount = at(body, 'instruction', 'value', 'amount');
    if (typeof amount === 'number') facts.amount = amount;
    const href = str(at(body, 'instruction', 'paymentInstrument', 'href'));
    if (href !== undefined) tokenFacts(refTokenId(href.slice(href.lastIndexOf('/') + 1)));
    else {
      assign('cardNumber', at(body, 'instruction', 'paymentInstrument', 'cardNumber'));
      assign('cardHolderName', at(body, 'instruction', 'paymentInstrument', 'cardHolderName'));
    }
  } else if (operation !== 'unknown') {
    tokenFacts(refTokenId(typeof req.params.ref === 'string' ? req.params.ref : undefined));
  }
  return facts;
}

function perform(deps: ScenarioActionDeps, rule: Rule, req: Request, res: Response, next: () => void): void {
  const { then } = rule;
  if (then.fault === 'connectionReset') {
    res.locals.fault = 'connectionReset';
    req.socket.destroy();
    return;
  }
  if (then.fault === 'noResponse') {
    res.locals.fault = 'noResponse';
    const socket = req.socket;
    deps.heldSockets.add(socket);
    socket.once('close', () => deps.heldSockets.delete(socket));
    return;
  }
  if (then.error) {
    res.locals.errorName = then.error.errorName;
    sendJson(res, then.error.status, { errorName: then.error.errorName, message: then.error.message ?? 'A scripted error from a token-sim scenario' });
    return;
  }
  if (then.outcome || then.riskFactors) {
    const override: SaleOverride = {
      ...(then.outcome && {
        outcome: {
          outcome: then.outcome.outcome,
          ...(then.outcome.refusalCode !== undefined && { refusalCode: then.outcome.refusalCode }),
          ...(then.outcome.refusalDescription !== undefined && { refusalDescription: then.outcome.refusalDescription }),
        },
      }),
      ...(then.riskFactors && { riskFactors: then.riskFactors }),
    };
    res.locals.saleOverride = override;
  }
  next();
}

/** The scenario step of one operation's route. */
export function scenarioStep(deps: ScenarioActionDeps, operation: Operation): RequestHandler {
  return (req, res, next) => {
    if (deps.engine.scenarios().length === 0) {
      next();
      return;
    }
    const tenant = deps.tenantOf(req);
    const applied = deps.engine.match(tenant, factsOf(deps, req, operation, tenant), deps.clock.now(tenant));
    if (!applied) {
      next();
      return;
    }
    res.locals.rule = applied.label;
    const delay = applied.rule.then.delayMs ?? 0;
    if (delay > 0) setTimeout(() => perform(deps, applied.rule, req, res, next), delay);
    else perform(deps, applied.rule, req, res, next);
  };
}

/** The scenario rule that matches an API request, as the decision the pipeline carries out after its delay. */
import type { Payment, PaymentScript } from '../domain/payment.js';
import type { SaleOverride } from '../domain/sale.js';
import type { RequestFacts, ScenarioEngine } from '../scenarios/engine.js';
import type { LostAnswer, Rule } from '../scenarios/schema.js';
import type { Exchange, ExchangeDeps } from './exchange.js';
import type { OperationDeps } from './operations/types.js';

export interface ScenarioStepDeps {
  engine: ScenarioEngine;
  /** The payment behind a payment ref of the tenant, for the facts of a refund, reversal or events request. */
  paymentOf?: (tenant: string, ref: string) => Payment | undefined;
}

type StepDeps = Pick<ExchangeDeps, 'clock'> & { scenario: ScenarioStepDeps; operations: Pick<OperationDeps, 'vault' | 'refs'> };

export type ScenarioAction =
  | { kind: 'fault'; fault: 'connectionReset' | 'noResponse' }
  | { kind: 'error'; status: number; errorName: string; message: string; headers?: Record<string, string> }
  | { kind: 'proceed'; saleOverride?: SaleOverride; paymentScript?: PaymentScript; lost?: LostAnswer };

function at(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function parsedBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The facts of the sale behind the payment ref of the URL, when it is one of the tenant's. */
function paymentFacts(facts: RequestFacts, deps: StepDeps, tenant: string, ref: string | undefined): void {
  const payment = ref === undefined ? undefined : deps.scenario.paymentOf?.(tenant, ref);
  if (!payment) return;
  facts.entity = payment.entity;
  facts.currency = payment.currency;
  facts.transactionReference = payment.transactionReference;
  facts.amount = payment.amount;
}

/** The query of a token query (`namespace`, `tokenId`) or a payment query (`transactionReference`). */
const queryOf = (ex: Exchange): URLSearchParams => new URLSearchParams((ex.req.url ?? '').slice(ex.path.length + 1));

/** What the request says, as a rule may match it: its body's facts, or those of the token or payment its ref or query names. */
function factsOf(deps: StepDeps, ex: Exchange, tenant: string, ref: string | undefined): RequestFacts {
  const { operation } = ex;
  const facts: RequestFacts = { operation, username: tenant };
  const tokenFacts = (tokenId: string | undefined): void => {
    const token = tokenId === undefined ? undefined : deps.operations.vault.peek(tenant, tokenId);
    if (!token) return;
    facts.entity = token.entity;
    if (token.namespace !== undefined) facts.namespace = token.namespace;
    facts.cardNumber = token.card.number;
    facts.cardHolderName = token.card.holderName;
  };
  const refTokenId = (text: string | undefined): string | undefined => {
    const ref = text === undefined ? undefined : deps.operations.refs.decode(text);
    return ref && ref.tenant === tenant ? ref.tokenId : undefined;
  };
  const body = parsedBody(ex.body ?? '');
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
  } else if (operation === 'queryTokens') {
    // The queried token's facts (looked at, not used), and the namespace asked for.
    const params = queryOf(ex);
    const tokenId = params.get('tokenId');
    if (tokenId) tokenFacts(tokenId);
    const namespace = params.get('namespace');
    if (namespace) facts.namespace = namespace;
  } else if (operation === 'refund' || operation === 'partialRefund' || operation === 'reversal' || operation === 'paymentEvents') {
    // The sale's facts; a partial refund's amount is the one it asks for.
    paymentFacts(facts, deps, tenant, ref);
    const amount = at(body, 'value', 'amount');
    if (operation === 'partialRefund' && typeof amount === 'number') facts.amount = amount;
  } else if (operation === 'paymentQuery') {
    // The queried payment's facts (looked at, not changed), or the transactionReference asked for.
    if (ref !== undefined) paymentFacts(facts, deps, tenant, ref);
    else assign('transactionReference', queryOf(ex).get('transactionReference') ?? undefined);
  } else if (operation !== 'unknown') {
    tokenFacts(refTokenId(ref));
  }
  return facts;
}

function actionOf({ then }: Rule): ScenarioAction {
  if (then.fault) return { kind: 'fault', fault: then.fault };
  if (then.error) {
    return { kind: 'error', status: then.error.status, errorName: then.error.errorName, message: then.error.message ?? 'A scripted error from a token-sim scenario' };
  }
  if (then.rateLimited) {
    const seconds = then.rateLimited.retryAfter;
    return { kind: 'error', status: 429, errorName: 'tooManyRequests', message: `Too many requests: retry after ${seconds} seconds`, headers: { 'Retry-After': String(seconds) } };
  }
  // The work the rule lets happen, shaped by its outcome, risk factors and payment script.
  const { outcome, riskFactors, settlement, refund, lostAnswer } = then;
  const saleOverride = outcome || riskFactors ? { ...(outcome && { outcome }), ...(riskFactors && { riskFactors }) } : undefined;
  const paymentScript = settlement || refund ? { ...(settlement && { settlementFails: true }), ...(refund && { refundFailure: refund.failed }) } : undefined;
  return { kind: 'proceed', ...(saleOverride && { saleOverride }), ...(paymentScript && { paymentScript }), ...(lostAnswer && { lost: lostAnswer }) };
}

/** The decision of the first matching rule (counting the match; `rule` is its label, the journal's), or undefined when none matches. */
export function decideScenario(deps: StepDeps, ex: Exchange, ref: string | undefined) {
  const { engine } = deps.scenario;
  if (!engine.active()) return undefined;
  const tenant = ex.tenant ?? '';
  const applied = engine.match(tenant, factsOf(deps, ex, tenant, ref), deps.clock.now(tenant));
  if (!applied) return undefined;
  return { rule: applied.label, delayMs: applied.delayMs, action: actionOf(applied.rule) };
}

export type ScenarioDecision = NonNullable<ReturnType<typeof decideScenario>>;

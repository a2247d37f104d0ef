/** The scenario file format (contract 2.3): validated data, apart from the engine that executes it. */
import * as z from 'zod';
import { fixtureToken, type FixtureToken } from '../config/fixtures.js';
import type { Profile } from '../config/options.js';
import type { RiskFactor } from '../domain/magic-values.js';
import { parseInstant } from '../wire/instant.js';
import { API_OPERATIONS, isoInstant, nonEmpty, oneOf, schemaFor } from '../wire/schemas.js';
import { checkDelay, checked, delayShape, invalid, numberIn, type DelaySpec } from './rule-numbers.js';
import { webhookRuleIssues, webhookThen, webhookWhen, type WebhookThen, type WebhookWhen } from './webhook-rules.js';

export type { RiskFactor } from '../domain/magic-values.js';

/** `webhook`: a payment event's delivery rather than an API request (contract 4.4, decision 0056). */
export const OPERATIONS = [...API_OPERATIONS, 'webhook', 'any'] as const;
export type ScenarioOperation = (typeof OPERATIONS)[number];

/** When a rule applies: every predicate given must hold. */
export interface RuleWhen extends WebhookWhen {
  operation?: ScenarioOperation | undefined;
  username?: string | undefined;
  entity?: string | undefined;
  namespace?: string | undefined;
  cardNumber?: string | undefined;
  cardHolderName?: string | undefined;
  currency?: string | undefined;
  transactionReference?: string | undefined;
  /** An amount in minor units, or a range of them. */
  amount?: number | { min?: number | undefined; max?: number | undefined } | undefined;
  /** Only the nth matching request (1-based, per tenant). */
  nth?: number | undefined;
  /** Every nth matching request. */
  every?: number | undefined;
  /** Stop applying after this many applications (per tenant). */
  times?: number | undefined;
  /** Applies with this probability (0 to 1), drawn from the tenant's seeded stream. */
  chance?: number | undefined;
  /** Virtual time window (ISO 8601). */
  between?: { from?: string | undefined; until?: string | undefined } | undefined;
}

/** What a rule does: at least one of these (the webhook actions on `operation: webhook` only). */
export interface RuleThen extends WebhookThen {
  /** Milliseconds, or a distribution drawn from at each application. */
  delayMs?: DelaySpec | undefined;
  error?: { status: number; errorName: string; message?: string | undefined } | undefined;
  fault?: 'connectionReset' | 'noResponse' | undefined;
  outcome?:
    | { outcome: 'sentForSettlement' | 'refused'; refusalCode?: string | undefined; refusalDescription?: string | undefined }
    | undefined;
  riskFactors?: RiskFactor[] | undefined;
  /** The sale's settlement fails: `settlementFailed` instead of `settled`. */
  settlement?: 'failed' | undefined;
  /** The sale's refunds (or the refund the rule matches) end in `refundFailed` with this refusal. */
  refund?: { failed: { code: string; description: string } } | undefined;
  /** After the work (contract 4.4): the operation is done and committed, then its answer is lost this way. */
  lostAnswer?: LostAnswer | undefined;
  /** Answers 429 `tooManyRequests` with `Retry-After: <retryAfter>` (seconds), doing nothing. */
  rateLimited?: { retryAfter: number } | undefined;
}

/** How an answer is lost after the work: the connection reset, never answered, or a 500 instead. */
export const LOST_ANSWERS = ['connectionReset', 'noResponse', 'internalError'] as const;
export type LostAnswer = (typeof LOST_ANSWERS)[number];

/** The longest Retry-After a rateLimited rule may ask (a day), in seconds. */
export const MAX_RETRY_AFTER_S = 86_400;

export interface Rule {
  /** Shown in the journal. */
  id?: string | undefined;
  when?: RuleWhen | undefined;
  then: RuleThen;
}

/** A scenario, as a scenario file (JSON or YAML) or the library's `loadScenarios` takes it. */
export interface Scenario {
  name: string;
  description?: string | undefined;
  profile?: Profile | undefined;
  tokens?: FixtureToken[] | undefined;
  rules?: Rule[] | undefined;
}

const instant = isoInstant('dateOrDateTime', 'must be an ISO 8601 date-time with a time zone, or a date');

const positive = (what: string) => z.int().min(1, `must be a whole number of ${what} from 1`);

const amountRange = z
  .strictObject({ min: z.int().min(0, 'must be 0 or more').optional(), max: z.int().min(0, 'must be 0 or more').optional() })
  .refine((r) => r.min === undefined || r.max === undefined || r.min <= r.max, invalid('min must not exceed max'));

const when = z
  .strictObject({
    operation: oneOf(OPERATIONS).optional(),
    username: z.string().optional(),
    entity: z.string().optional(),
    namespace: z.string().optional(),
    cardNumber: z.string().optional(),
    cardHolderName: z.string().optional(),
    currency: z.string().optional(),
    transactionReference: z.string().optional(),
    ...webhookWhen,
    amount: z.union([z.int().min(0, 'must be 0 or more'), amountRange], { error: 'must be a whole number or {min, max}' }).optional(),
    nth: positive('requests').optional(),
    every: positive('requests').optional(),
    times: positive('applications').optional(),
    chance: checked((v, issues) => numberIn(v, [], issues, 0, 1), z.number().min(0).max(1)),
    between: z
      .strictObject({ from: instant.optional(), until: instant.optional() })
      // An absent bound is open; a bound that is not a date is reported at itself, not here as well.
      .refine((b) => (parseInstant(b.from ?? '') ?? Number.NEGATIVE_INFINITY) < (parseInstant(b.until ?? '') ?? Number.POSITIVE_INFINITY), invalid('from must be before until'))
      .optional(),
  })
  .refine((w) => w.nth === undefined || w.every === undefined, invalid('nth and every cannot be combined'));

const riskFactor = z.strictObject({
  risk: oneOf(['not_checked', 'not_matched', 'not_supplied']),
  detail: oneOf(['address', 'postcode']),
});

const then = z
  .strictObject({
    delayMs: checked(checkDelay, delayShape),
    error: z
      .strictObject({
        status: z.int().min(400, 'must be an error status from 400 to 599').max(599, 'must be an error status from 400 to 599'),
        errorName: nonEmpty,
        message: z.string().optional(),
      })
      .optional(),
    fault: oneOf(['connectionReset', 'noResponse']).optional(),
    outcome: z
      .strictObject({
        outcome: oneOf(['sentForSettlement', 'refused']),
        refusalCode: nonEmpty.optional(),
        refusalDescription: nonEmpty.optional(),
      })
      .optional(),
    riskFactors: z.array(riskFactor).optional(),
    settlement: oneOf(['failed']).optional(),
    refund: z.strictObject({ failed: z.strictObject({ code: nonEmpty, description: nonEmpty }) }).optional(),
    lostAnswer: oneOf(LOST_ANSWERS).optional(),
    rateLimited: z
      .strictObject({ retryAfter: z.int('must be a whole number of seconds').min(0, 'must be 0 or more').max(MAX_RETRY_AFTER_S, `must be at most ${MAX_RETRY_AFTER_S}`) })
      .optional(),
    ...webhookThen,
  })
  .refine((t) => Object.values(t).some((v) => v !== undefined), {
    error: 'must hold at least one of delayMs, error, fault, outcome, riskFactors, settlement, refund, lostAnswer, rateLimited (or on operation: webhook, duplicate, reorder, delay, drop)',
    params: { errorName: 'fieldIsEmpty' },
  })
  .superRefine((t, ctx) => {
    // Each decides the answer alone: an error, a fault or a rate limit does no work; a lost answer needs it done.
    const given = (['error', 'fault', 'rateLimited', 'lostAnswer'] as const).filter((key) => t[key] !== undefined);
    if (given.length > 1) {
      ctx.addIssue({ code: 'custom', path: [given[1] as string], message: `cannot be combined with ${given[0] as string}`, params: { errorName: 'fieldHasInvalidValue' } });
    }
  });

export const ruleSchema = schemaFor<Rule>()(
  z
    .strictObject({ id: nonEmpty.optional(), when: when.optional(), then })
    .superRefine((rule, ctx) => {
      for (const i of webhookRuleIssues(rule)) ctx.addIssue({ code: 'custom', path: i.path, message: i.message, params: { errorName: 'fieldHasInvalidValue' } });
      // What shapes a sale (or, for `refund`, a refund) would apply to nothing elsewhere; a misspelt operation is reported at itself.
      const operation = rule.when?.operation;
      if (operation === undefined || operation === 'any' || !OPERATIONS.includes(operation)) return;
      const refunds = operation === 'sale' || operation === 'refund' || operation === 'partialRefund';
      for (const key of ['outcome', 'riskFactors', 'settlement', 'refund'] as const) {
        if (rule.then[key] === undefined || operation === 'sale' || (key === 'refund' && refunds)) continue;
        const what = key === 'refund' ? 'sales and refunds' : 'sales';
        ctx.addIssue({ code: 'custom', path: ['then', key], message: `applies to ${what} only, and this rule matches ${operation}`, params: { errorName: 'fieldHasInvalidValue' } });
      }
    }),
);

/** Every object of a scenario file refuses fields it does not define (fieldIsNotAllowed, with a hint). */
export const scenarioSchema = schemaFor<Scenario>()(
  z.strictObject({
    name: nonEmpty,
    description: z.string().optional(),
    profile: oneOf(['try', 'live']).optional(),
    tokens: z.array(fixtureToken).optional(),
    rules: z.array(ruleSchema).optional(),
  }),
);

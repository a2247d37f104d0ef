/** The scenario file format (contract 2.3): validated data, apart from the engine that executes it. */
import * as z from 'zod';
import { fixtureToken } from '../config/fixtures.js';
import { parseInstant } from '../wire/instant.js';
import { isoInstant, oneOf } from '../wire/schemas.js';

export const OPERATIONS = ['createToken', 'getToken', 'updateToken', 'deleteToken', 'queryTokens', 'sale', 'refund', 'partialRefund', 'reversal', 'paymentEvents', 'any'] as const;

/** The longest a scripted delay may hold a request. */
export const MAX_DELAY_MS = 60_000;

const instant = isoInstant('dateOrDateTime', 'must be an ISO 8601 date-time with a time zone, or a date');

const positive = (what: string) => z.int().min(1, `must be a whole number of ${what} from 1`);

const amountRange = z
  .strictObject({ min: z.int().min(0, 'must be 0 or more').optional(), max: z.int().min(0, 'must be 0 or more').optional() })
  .refine((r) => r.min === undefined || r.max === undefined || r.min <= r.max, { error: 'min must not exceed max', params: { errorName: 'fieldHasInvalidValue' } });

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
    amount: z.union([z.int().min(0, 'must be 0 or more'), amountRange], { error: 'must be a whole number or {min, max}' }).optional(),
    nth: positive('requests').optional(),
    every: positive('requests').optional(),
    times: positive('applications').optional(),
    between: z
      .strictObject({ from: instant.optional(), until: instant.optional() })
      // An absent bound is open; a bound that is not a date is reported at itself, not here as well.
      .refine((b) => (parseInstant(b.from ?? '') ?? Number.NEGATIVE_INFINITY) < (parseInstant(b.until ?? '') ?? Number.POSITIVE_INFINITY), {
        error: 'from must be before until',
        params: { errorName: 'fieldHasInvalidValue' },
      })
      .optional(),
  })
  .refine((w) => w.nth === undefined || w.every === undefined, { error: 'nth and every cannot be combined', params: { errorName: 'fieldHasInvalidValue' } });

const riskFactor = z.strictObject({
  risk: oneOf(['not_checked', 'not_matched', 'not_supplied']),
  detail: oneOf(['address', 'postcode']),
});

const then = z
  .strictObject({
    delayMs: z.int().min(0, 'must be 0 or more').max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS}`).optional(),
    error: z
      .strictObject({
        status: z.int().min(400, 'must be an error status from 400 to 599').max(599, 'must be an error status from 400 to 599'),
        errorName: z.string().min(1, 'must not be empty'),
        message: z.string().optional(),
      })
      .optional(),
    fault: oneOf(['connectionReset', 'noResponse']).optional(),
    outcome: z
      .strictObject({
        outcome: oneOf(['sentForSettlement', 'refused']),
        refusalCode: z.string().min(1, 'must not be empty').optional(),
        refusalDescription: z.string().min(1, 'must not be empty').optional(),
      })
      .optional(),
    riskFactors: z.array(riskFactor).optional(),
    // The payment's later life (contract 3.2): its settlement fails, or its refunds do.
    settlement: oneOf(['failed']).optional(),
    refund: z
      .strictObject({
        failed: z.strictObject({ code: z.string().min(1, 'must not be empty'), description: z.string().min(1, 'must not be empty') }),
      })
      .optional(),
  })
  .refine((t) => Object.values(t).some((v) => v !== undefined), {
    error: 'must hold at least one of delayMs, error, fault, outcome, riskFactors, settlement, refund',
    params: { errorName: 'fieldIsEmpty' },
  })
  .refine((t) => t.error === undefined || t.fault === undefined, { error: 'error and fault cannot be combined', params: { errorName: 'fieldHasInvalidValue' } });

export const ruleSchema = z
  .strictObject({ id: z.string().min(1, 'must not be empty').optional(), when: when.optional(), then })
  .superRefine((rule, ctx) => {
    // outcome and riskFactors shape a sale's answer: on a rule that can only match other operations they
    // would apply (and be counted) without any effect.
    // `refund` scripts a sale's refunds, or the refund a rule matches.
    const operation = rule.when?.operation;
    if (operation === undefined || operation === 'any') return;
    const refunds = operation === 'sale' || operation === 'refund' || operation === 'partialRefund';
    for (const key of ['outcome', 'riskFactors', 'settlement', 'refund'] as const) {
      if (rule.then[key] === undefined || operation === 'sale' || (key === 'refund' && refunds)) continue;
      const what = key === 'refund' ? 'sales and refunds' : 'sales';
      ctx.addIssue({ code: 'custom', path: ['then', key], message: `applies to ${what} only, and this rule matches ${operation}`, params: { errorName: 'fieldHasInvalidValue' } });
    }
  });

/** Every object of a scenario file refuses fields it does not define (fieldIsNotAllowed, with a hint). */
export const scenarioSchema = z.strictObject({
  name: z.string().min(1, 'must not be empty'),
  description: z.string().optional(),
  profile: oneOf(['try', 'live']).optional(),
  tokens: z.array(fixtureToken).optional(),
  rules: z.array(ruleSchema).optional(),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type ScenarioOperation = (typeof OPERATIONS)[number];

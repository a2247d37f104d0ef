/** The scenario file format (contract 2.3): validated data, apart from the engine that executes it. */
import * as z from 'zod';
import { fixtureToken, type FixtureToken } from '../config/fixtures.js';
import type { Profile } from '../config/options.js';
import { parseInstant } from '../wire/instant.js';
import { API_OPERATIONS, isoInstant, oneOf } from '../wire/schemas.js';
import { schemaFor } from '../wire/schema-for.js';
import type { FieldErrorName } from '../wire/problems.js';
import { notAllowedMessage } from '../wire/unknown-fields.js';
import { webhookRuleIssues, webhookThen, webhookWhen, type WebhookThen, type WebhookWhen } from './webhook-rules.js';

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

export interface RiskFactor {
  risk: 'not_checked' | 'not_matched' | 'not_supplied';
  detail: 'address' | 'postcode';
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
}

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

/** The longest a scripted delay may hold a request. */
export const MAX_DELAY_MS = 60_000;
/** The widest lognormal spread: beyond it nearly every draw is 0 or the maximum. */
export const MAX_SIGMA = 10;

const instant = isoInstant('dateOrDateTime', 'must be an ISO 8601 date-time with a time zone, or a date');

const positive = (what: string) => z.int().min(1, `must be a whole number of ${what} from 1`);

type Issue = { path: (string | number)[]; errorName: FieldErrorName; message: string };

/**
 * A field checked by hand (decision 0037), for what zod's own issues would misname: a number that need not
 * be whole (zod's number issues read as fieldMustBeInteger), and a union whose alternative a key picks (zod
 * reports a failed union at the union, not at the offending item). `json` describes it in the OpenAPI document.
 */
function checked<T>(check: (value: unknown, issues: Issue[]) => T, json: Record<string, unknown>) {
  return z
    .unknown()
    .transform((value, ctx): T => {
      const issues: Issue[] = [];
      const out = check(value, issues);
      for (const i of issues) ctx.addIssue({ code: 'custom', path: i.path, message: i.message, params: { errorName: i.errorName } });
      return issues.length > 0 ? z.NEVER : out;
    })
    .meta(json)
    .optional();
}

/** A finite number within [min, max] (exclusive of min when `above`), else one issue at `path`. */
function numberIn(value: unknown, path: (string | number)[], issues: Issue[], min: number, max: number, above = false): number {
  if (value === null) issues.push({ path, errorName: 'fieldIsNull', message: 'must not be null' });
  else if (value === undefined) issues.push({ path, errorName: 'fieldIsMissing', message: 'is required' });
  else if (typeof value !== 'number' || !Number.isFinite(value)) issues.push({ path, errorName: 'fieldMustBeNumber', message: 'must be a number' });
  else if (above ? value <= min : value < min) issues.push({ path, errorName: 'fieldHasInvalidValue', message: above ? `must be more than ${min}` : `must be ${min} or more` });
  else if (value > max) issues.push({ path, errorName: 'fieldHasInvalidValue', message: `must be at most ${max}` });
  return value as number;
}

/** A whole number of milliseconds within [0, MAX_DELAY_MS], else one issue at `path`. */
function delayIn(value: unknown, path: (string | number)[], issues: Issue[]): number {
  if (value === null) issues.push({ path, errorName: 'fieldIsNull', message: 'must not be null' });
  else if (value === undefined) issues.push({ path, errorName: 'fieldIsMissing', message: 'is required' });
  else if (typeof value !== 'number' || !Number.isInteger(value)) issues.push({ path, errorName: 'fieldMustBeInteger', message: 'must be an integer' });
  else if (value < 0) issues.push({ path, errorName: 'integerIsTooSmall', message: 'must be 0 or more' });
  else if (value > MAX_DELAY_MS) issues.push({ path, errorName: 'integerIsTooLarge', message: `must be at most ${MAX_DELAY_MS}` });
  return value as number;
}

/** Keys other than `allowed`, one fieldIsNotAllowed each. */
function onlyKeys(value: object, allowed: readonly string[], path: (string | number)[], issues: Issue[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) issues.push({ path: [...path, key], errorName: 'fieldIsNotAllowed', message: notAllowedMessage(key, allowed).slice(key.length + 1) });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A delay: whole milliseconds, or a distribution drawn from at each application (decision 0037). */
export type DelaySpec = number | { uniform: [number, number] } | { lognormal: { median: number; sigma: number } };

const DELAY_SHAPES = `a whole number of milliseconds, {uniform: [min, max]} or {lognormal: {median, sigma}}`;

function checkDelay(value: unknown, issues: Issue[]): DelaySpec {
  if (!isObject(value)) return delayIn(value, [], issues);
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'uniform' && keys[0] !== 'lognormal')) {
    issues.push({ path: [], errorName: 'fieldHasInvalidValue', message: `must be ${DELAY_SHAPES}` });
    return 0;
  }
  if (keys[0] === 'uniform') {
    const range = value.uniform;
    if (!Array.isArray(range) || range.length !== 2) {
      issues.push({ path: ['uniform'], errorName: 'fieldHasInvalidValue', message: 'must be [min, max]: two whole numbers of milliseconds' });
      return 0;
    }
    const min = delayIn(range[0], ['uniform', 0], issues);
    const max = delayIn(range[1], ['uniform', 1], issues);
    if (issues.length === 0 && min > max) issues.push({ path: ['uniform', 1], errorName: 'fieldHasInvalidValue', message: 'must not be below the minimum' });
    return { uniform: [min, max] };
  }
  const params = value.lognormal;
  if (!isObject(params)) {
    issues.push({ path: ['lognormal'], errorName: params === null ? 'fieldIsNull' : 'fieldMustBeObject', message: params === null ? 'must not be null' : 'must be a JSON object' });
    return 0;
  }
  onlyKeys(params, ['median', 'sigma'], ['lognormal'], issues);
  const median = numberIn(params.median, ['lognormal', 'median'], issues, 0, MAX_DELAY_MS, true);
  const sigma = numberIn(params.sigma, ['lognormal', 'sigma'], issues, 0, MAX_SIGMA);
  return { lognormal: { median, sigma } };
}

const delayJson = {
  anyOf: [
    { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS },
    {
      type: 'object',
      properties: { uniform: { type: 'array', prefixItems: [{ type: 'integer', minimum: 0, maximum: MAX_DELAY_MS }, { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS }], items: false, minItems: 2, maxItems: 2 } },
      required: ['uniform'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        lognormal: {
          type: 'object',
          properties: { median: { type: 'number', exclusiveMinimum: 0, maximum: MAX_DELAY_MS }, sigma: { type: 'number', minimum: 0, maximum: MAX_SIGMA } },
          required: ['median', 'sigma'],
          additionalProperties: false,
        },
      },
      required: ['lognormal'],
      additionalProperties: false,
    },
  ],
};

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
    ...webhookWhen,
    amount: z.union([z.int().min(0, 'must be 0 or more'), amountRange], { error: 'must be a whole number or {min, max}' }).optional(),
    nth: positive('requests').optional(),
    every: positive('requests').optional(),
    times: positive('applications').optional(),
    // Applies with this probability, drawn from the tenant's seeded `chance` stream (decision 0037).
    chance: checked((v, issues) => numberIn(v, [], issues, 0, 1), { type: 'number', minimum: 0, maximum: 1 }),
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
    delayMs: checked(checkDelay, delayJson),
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
    ...webhookThen,
  })
  .refine((t) => Object.values(t).some((v) => v !== undefined), {
    error: 'must hold at least one of delayMs, error, fault, outcome, riskFactors, settlement, refund (or on operation: webhook, duplicate, reorder, delay, drop)',
    params: { errorName: 'fieldIsEmpty' },
  })
  .refine((t) => t.error === undefined || t.fault === undefined, { error: 'error and fault cannot be combined', params: { errorName: 'fieldHasInvalidValue' } });

export const ruleSchema = schemaFor<Rule>()(
  z
    .strictObject({ id: z.string().min(1, 'must not be empty').optional(), when: when.optional(), then })
    .superRefine((rule, ctx) => {
      // Webhook predicates and actions where they have an effect only (decision 0056).
      for (const i of webhookRuleIssues(rule)) ctx.addIssue({ code: 'custom', path: i.path, message: i.message, params: { errorName: 'fieldHasInvalidValue' } });
      // outcome and riskFactors shape a sale's answer: on a rule that can only match other operations they
      // would apply (and be counted) without any effect.
      // `refund` scripts a sale's refunds, or the refund a rule matches.
      // A misspelt operation is reported at itself (with a "did you mean"), not here as well.
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
    name: z.string().min(1, 'must not be empty'),
    description: z.string().optional(),
    profile: oneOf(['try', 'live']).optional(),
    tokens: z.array(fixtureToken).optional(),
    rules: z.array(ruleSchema).optional(),
  }),
);

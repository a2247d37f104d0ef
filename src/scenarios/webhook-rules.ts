/** Scenario rules on `operation: webhook` (contract 4.4, decision 0056): their predicates and actions, kept where they have an effect. */
import * as z from 'zod';
import { isPositiveDuration, parseDuration } from '../domain/duration.js';
import { PAYMENT_EVENT_TYPES, type PaymentEventType } from '../domain/payment.js';
import { oneOf } from '../wire/schemas.js';
import { invalid, type Issue } from './rule-numbers.js';

/** A rule's predicate that only webhook rules take. */
export interface WebhookWhen {
  /** The payment event's type (`sentForSettlement`, `settled`, `refundFailed`…): `operation: webhook` only. */
  type?: PaymentEventType | undefined;
}

/** What a webhook rule does to the deliveries of the events it matches: at least one, `drop` alone, not `reorder` with `delay`. */
export interface WebhookThen {
  /** Delivered this many extra times (1 to 10), with the same `eventId`. */
  duplicate?: number | undefined;
  /** Held back until the payment's next event is handed to delivery, then delivered right after it. */
  reorder?: true | undefined;
  /** An ISO 8601 duration on the tenant's virtual clock: delivered once the clock reaches the event's time plus this. */
  delay?: string | undefined;
  /** Never delivered: the log shows it dropped. */
  drop?: true | undefined;
}

/** The most extra deliveries a rule asks for. */
export const MAX_DUPLICATES = 10;

const justTrue = z.literal(true, { error: 'must be true (leave it out otherwise)' });

export const webhookWhen = { type: oneOf(PAYMENT_EVENT_TYPES).optional() };

export const webhookThen = {
  duplicate: z
    .int()
    .min(1, `must be a whole number of extra deliveries from 1 to ${MAX_DUPLICATES}`)
    .max(MAX_DUPLICATES, `must be a whole number of extra deliveries from 1 to ${MAX_DUPLICATES}`)
    .optional(),
  reorder: justTrue.optional(),
  delay: z
    .string()
    .refine((text) => {
      const d = parseDuration(text);
      return d !== undefined && isPositiveDuration(d);
    }, invalid('must be a positive ISO 8601 duration such as PT1H or P1D (on the virtual clock)'))
    .optional(),
  drop: justTrue.optional(),
};

const WEBHOOK_ACTIONS = ['duplicate', 'reorder', 'delay', 'drop'] as const;
/** What a webhook rule may say besides `operation`: its predicates. */
const WEBHOOK_PREDICATES = ['type', 'transactionReference', 'nth', 'every', 'times', 'chance', 'between'];
/** The actions of API rules that mean nothing to a webhook; outcome, riskFactors, settlement and refund are refused by the sale's own check. */
const API_ACTIONS = ['delayMs', 'error', 'fault'] as const;

interface RuleShape {
  when?: Record<string, unknown> | undefined;
  then: Record<string, unknown>;
}

type WebhookRuleIssue = Omit<Issue, 'errorName'>;

/** What is wrong with a rule's mix of webhook and API predicates and actions, each at its own path. */
export function webhookRuleIssues(rule: RuleShape): WebhookRuleIssue[] {
  const webhook = rule.when?.operation === 'webhook';
  const given = (key: string): boolean => rule.then[key] !== undefined;
  if (!webhook) {
    const misplaced: WebhookRuleIssue[] = WEBHOOK_ACTIONS.filter(given).map((key) => ({ path: ['then', key], message: 'applies to operation: webhook only' }));
    if (rule.when?.type !== undefined) misplaced.unshift({ path: ['when', 'type'], message: 'is the event type of operation: webhook rules only' });
    return misplaced;
  }
  const issues: WebhookRuleIssue[] = Object.keys(rule.when ?? {})
    .filter((key) => key !== 'operation' && !WEBHOOK_PREDICATES.includes(key))
    .map((key) => ({ path: ['when', key], message: `is not a predicate of operation: webhook rules, which take ${WEBHOOK_PREDICATES.join(', ')}` }));
  for (const key of API_ACTIONS.filter(given)) {
    const hint = key === 'delayMs' ? ': a webhook takes delay, an ISO 8601 duration on the virtual clock' : '';
    issues.push({ path: ['then', key], message: `applies to API requests, and this rule matches webhook${hint}` });
  }
  if (given('drop') && WEBHOOK_ACTIONS.some((key) => key !== 'drop' && given(key))) {
    issues.push({ path: ['then', 'drop'], message: 'cannot be combined with duplicate, reorder or delay: a dropped event is never delivered' });
  } else if (given('reorder') && given('delay')) {
    issues.push({ path: ['then', 'delay'], message: 'cannot be combined with reorder: a delivery waits for the clock or for the next event, not both' });
  }
  return issues;
}

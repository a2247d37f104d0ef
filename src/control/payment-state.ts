/** Payments in state snapshots (contract 3.2): their amounts, scripts, history and what the clock will bring. */
import * as z from 'zod';
import { PAYMENT_EVENT_TYPES, SETTLEMENT_SEQ, scheduledEventsOf, type Payment, type PaymentEvent, type PaymentScript } from '../domain/payment.js';
import { isInRange } from '../domain/duration.js';
import { formatInstant, parseInstant } from '../wire/instant.js';
import { isoInstant, oneOf } from '../wire/schemas.js';
import type { PaymentEventState, PaymentState } from './snapshot-types.js';

/** An instant of a snapshot: inside the clock's range (decision 0021), or a later request could not write it. */
export const instant = isoInstant('dateOrDateTime', 'must be an ISO 8601 date-time').refine((text) => isInRange(parseInstant(text) ?? 0), {
  error: "must be inside the clock's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z",
  params: { errorName: 'fieldHasInvalidValue' },
});
export const instantMs = (text: string): number => parseInstant(text) ?? Number.NaN;
const amount = z.int().min(0);
/** The pending settlement among a payment's scheduled events. */
const isSettlement = (e: Pick<PaymentEvent, 'seq' | 'type'>): boolean => e.seq === SETTLEMENT_SEQ && (e.type === 'settled' || e.type === 'settlementFailed');
const refusal = z.strictObject({ code: z.string().min(1), description: z.string().min(1) });

const eventState = z.strictObject({
  seq: z.int().min(1),
  type: oneOf(PAYMENT_EVENT_TYPES),
  at: instant,
  amount,
  reference: z.string().optional(),
  refusal: refusal.optional(),
});

export const paymentState = z.strictObject({
  tenant: z.string().min(1),
  paymentId: z.string().regex(/^99[0-9]{17}$/, 'must be 99 and 17 digits'),
  transactionReference: z.string(),
  entity: z.string().min(1),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be 3 upper-case letters'),
  amount,
  createdAt: instant,
  origin: z.string().optional(),
  settlement: oneOf(['none', 'pending', 'settled', 'failed', 'cancelled']),
  refunded: amount,
  refundRequested: z.boolean(),
  reversed: z.boolean(),
  script: z.strictObject({ settlementFails: z.boolean().optional(), refundFailure: refusal.optional() }),
  events: z.array(eventState),
  scheduled: z.array(eventState),
  eventCount: z.int().min(0),
}).refine((p) => p.settlement !== 'pending' || p.scheduled.some(isSettlement), {
  error: 'a payment whose settlement is pending must have its settlement scheduled (seq 2, settled or settlementFailed)',
  path: ['scheduled'],
  params: { errorName: 'fieldHasInvalidValue' },
});

/** An event with its instant as given (text in a snapshot, epoch ms in a payment), its refusal copied. */
const withAt = <At>(e: PaymentEvent | PaymentEventState, at: At) => ({
  seq: e.seq,
  type: e.type,
  at,
  amount: e.amount,
  ...(e.reference !== undefined && { reference: e.reference }),
  ...(e.refusal && { refusal: { ...e.refusal } }),
});
const eventToState = (e: PaymentEvent): PaymentEventState => withAt(e, formatInstant(e.at));
const eventFromState = (e: PaymentEventState): PaymentEvent => withAt(e, instantMs(e.at));

const copyScript = (script: PaymentScript | PaymentState['script']): PaymentScript => ({
  ...(script.settlementFails !== undefined && { settlementFails: script.settlementFails }),
  ...(script.refundFailure && { refundFailure: { ...script.refundFailure } }),
});

/** The fields named in K, one that may be undefined made optional instead. */
type Defined<T, K extends keyof T> = { [P in K as undefined extends T[P] ? never : P]: T[P] } & { [P in K as undefined extends T[P] ? P : never]?: Exclude<T[P], undefined> };

/** The fields of `from` named in `keys` that are defined, in the keys' order. */
export function definedOf<T, K extends keyof T>(from: T, keys: readonly K[]): Defined<T, K> {
  const out: Record<string | number | symbol, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out as Defined<T, K>;
}

const HEAD = ['tenant', 'paymentId', 'transactionReference', 'entity', 'currency', 'amount'] as const;
const STATUS = ['settlement', 'refunded', 'refundRequested', 'reversed'] as const;

export function paymentToState(p: Payment): PaymentState {
  return {
    ...definedOf(p, HEAD),
    createdAt: formatInstant(p.createdAt),
    ...definedOf(p, ['origin', ...STATUS]),
    script: copyScript(p.script),
    events: p.events.map(eventToState),
    // The pending settlement travels as the scheduled event it is (seq 2).
    scheduled: scheduledEventsOf(p).map(eventToState),
    eventCount: p.eventCount,
  };
}

export function paymentFromState(s: PaymentState): Payment {
  const scheduled = s.scheduled.map(eventFromState);
  const settlement = s.settlement === 'pending' ? scheduled.find(isSettlement) : undefined;
  const others = scheduled.filter((e) => e !== settlement);
  return {
    ...definedOf(s, HEAD),
    createdAt: instantMs(s.createdAt),
    origin: s.origin,
    ...definedOf(s, STATUS),
    script: copyScript(s.script),
    events: s.events.map(eventFromState),
    settlesAt: settlement?.at,
    scheduled: others.sort((a, b) => a.at - b.at),
    eventCount: Math.max(s.eventCount, ...s.events.map((e) => e.seq), ...s.scheduled.map((e) => e.seq)),
  };
}

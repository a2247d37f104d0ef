/** A payment after the sale: amounts, refunds and event history (contract 3.2, decision 0029); payments.ts changes it. */
import type { Mutable } from './token.js';

/** Why a sale (or a scripted refund) was refused: the issuer's code and its description. */
export interface Refusal {
  code: string;
  description: string;
}

/** The vendor's event names (a scenario rule on `operation: webhook` matches them by `type`). */
export const PAYMENT_EVENT_TYPES = ['sentForSettlement', 'settled', 'settlementFailed', 'cancelled', 'sentForRefund', 'refundFailed', 'refused'] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

export type PaymentAction = 'refund' | 'partialRefund' | 'reversal';

export interface PaymentEvent {
  /** The event's number within its payment, from 1: with the payment, it names the event (Ids.eventId). */
  seq: number;
  type: PaymentEventType;
  /** Virtual time of the event, epoch ms. */
  at: number;
  /** The amount the event is about: the sale's, or a refund's. */
  amount: number;
  /** A partial refund's reference. */
  reference?: string;
  /** Why the sale was refused (on its `refused` event), or why a refund failed (on `refundFailed`). */
  refusal?: Refusal;
}

/** What a scenario scripted for the payment's later life. */
export interface PaymentScript {
  /** The settlement fails (`settlementFailed` instead of `settled`). */
  settlementFails?: boolean;
  /** Refunds of this payment fail with this refusal (`refundFailed` after `sentForRefund`). */
  refundFailure?: Refusal;
}

/** Where the settlement stands: `none` for a refused sale. */
export type Settlement = 'none' | 'pending' | 'settled' | 'failed' | 'cancelled';

/** A stored payment: read-only, changed only as a PaymentDraft inside its store's `update` (decision 0050). */
export interface Payment {
  readonly tenant: string;
  readonly paymentId: string;
  readonly transactionReference: string;
  readonly entity: string;
  readonly currency: string;
  readonly amount: number;
  readonly createdAt: number;
  /** Where the sale came from (the base of its links), so that events sent later link back the same way. */
  readonly origin: string | undefined;
  readonly settlement: Settlement;
  /** Amounts sent for refund and not failed (reversals after settlement included). */
  readonly refunded: number;
  /** A refund or partial refund was accepted once (a reversal is no longer allowed). */
  readonly refundRequested: boolean;
  readonly reversed: boolean;
  readonly script: PaymentScript;
  /** What happened, oldest first. */
  readonly events: readonly PaymentEvent[];
  /** While the settlement is pending, when it happens (`seq` 2): an instant, not an event, so a sale stores two objects fewer. */
  readonly settlesAt: number | undefined;
  /** What else will happen by the clock (scripted refund failures), soonest first; shared and empty when none. */
  readonly scheduled: readonly PaymentEvent[];
  /** How many events were made (happened or scheduled, the settlement's included), for the next one's `seq`. */
  readonly eventCount: number;
}

/** What the sale fixed: never changed once stored. */
type PaymentKeys = 'tenant' | 'paymentId' | 'transactionReference' | 'entity' | 'currency' | 'amount' | 'createdAt' | 'origin' | 'script';

/** A payment as its store's `update` hands it over to be changed: its state, history and schedule. */
export type PaymentDraft = Mutable<Omit<Payment, PaymentKeys | 'events'>> & Pick<Payment, PaymentKeys> & { events: PaymentEvent[] };

/** The `seq` of a payment's settlement event: the sale's own event is 1. */
export const SETTLEMENT_SEQ = 2;

/** The settlement event of a payment whose settlement is pending. */
export function settlementEventOf(payment: Payment): PaymentEvent | undefined {
  if (payment.settlesAt === undefined) return undefined;
  return { seq: SETTLEMENT_SEQ, type: payment.script.settlementFails ? 'settlementFailed' : 'settled', at: payment.settlesAt, amount: payment.amount };
}

/** Everything scheduled, the pending settlement included, soonest first (the settlement first of equals). */
export function scheduledEventsOf(payment: Payment): PaymentEvent[] {
  const settlement = settlementEventOf(payment);
  const all = settlement ? [settlement, ...payment.scheduled] : [...payment.scheduled];
  return all.sort((a, b) => a.at - b.at);
}

export interface NewPayment {
  transactionReference: string;
  entity: string;
  currency: string;
  amount: number;
  approved: boolean;
  /** A refused sale's refusal (code and description), kept on its `refused` event. */
  refusal?: Refusal;
  origin?: string;
  script?: PaymentScript;
}

export interface PartialRefund {
  amount: number;
  currency: string;
  reference: string;
}

/** The last event by now: what the payment's `lastEvent` says. */
export function lastEventOf(payment: Payment): PaymentEventType {
  return payment.events[payment.events.length - 1]?.type ?? 'sentForSettlement';
}

/** The sale's outcome: `refused`, or `sentForSettlement` for an approved sale, whatever happened since. */
export const saleOutcomeOf = (payment: Payment): 'sentForSettlement' | 'refused' => (payment.settlement === 'none' ? 'refused' : 'sentForSettlement');

export const remainingOf = (payment: Payment): number => payment.amount - payment.refunded;

/** The actions the payment's state allows now (its events caught up). */
export function allowedActions(payment: Payment): PaymentAction[] {
  const live = (payment.settlement === 'pending' || payment.settlement === 'settled') && !payment.reversed;
  if (!live) return [];
  const actions: PaymentAction[] = [];
  if (remainingOf(payment) > 0) actions.push('refund', 'partialRefund');
  if (!payment.refundRequested) actions.push('reversal');
  return actions;
}

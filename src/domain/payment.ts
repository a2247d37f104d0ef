/**
 * A payment after the sale: its amounts, its refunds and its event history, on an injected clock (contract
 * 3.2, decision 0029). Pure rules: the events that are due by the tenant's virtual now are caught up before
 * every action and read, so a clock advance takes effect on the very next request without timers.
 */
import { addDuration, type Duration } from './duration.js';
import { DomainError } from './errors.js';
import type { Clock, Ids, PaymentStore } from './ports.js';
import type { Refusal } from './sale.js';

/** The vendor's event names. */
export type PaymentEventType = 'sentForSettlement' | 'settled' | 'settlementFailed' | 'cancelled' | 'sentForRefund' | 'refundFailed' | 'refused';

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
  settlement: Settlement;
  /** Amounts sent for refund and not failed (reversals after settlement included). */
  refunded: number;
  /** A refund or partial refund was accepted once (a reversal is no longer allowed). */
  refundRequested: boolean;
  reversed: boolean;
  script: PaymentScript;
  /** What happened, oldest first. */
  events: PaymentEvent[];
  /**
   * While the settlement is pending: when it happens (`settled`, or the scripted `settlementFailed`, with
   * `seq` 2). Kept as an instant, not as a scheduled event, so that a sale stores two objects fewer.
   */
  settlesAt: number | undefined;
  /** What else will happen by the clock (scripted refund failures), soonest first; shared and empty when none. */
  scheduled: readonly PaymentEvent[];
  /** How many events were made (happened or scheduled, the settlement's included), for the next one's `seq`. */
  eventCount: number;
}

/** The `seq` of a payment's settlement event: the sale's own event is 1. */
export const SETTLEMENT_SEQ = 2;

const NOTHING_SCHEDULED: readonly PaymentEvent[] = Object.freeze([]);

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

/** The script of a payment that has none, shared. */
const NO_SCRIPT: PaymentScript = Object.freeze({});

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

export interface PaymentsDeps {
  clock: Clock;
  ids: Ids;
  store: PaymentStore;
  /** How long until a sale settles, and until a scripted refund failure shows (`--settlement-delay`). */
  settlementDelay: Duration;
  /** Told of every event as it happens (webhooks); events caused by a clock move are told during the move. */
  onEvent?: (payment: Payment, event: PaymentEvent) => void;
}

export interface Payments {
  /** Records a sale's payment: `sentForSettlement` with its settlement scheduled, or `refused`. */
  record(tenant: string, sale: NewPayment): Payment;
  /** The payment with its due events caught up; throws `paymentNotFound`. */
  get(tenant: string, paymentId: string): Payment;
  /** `failure` (a scenario on the refund itself) makes this refund fail, whatever the sale's script says. */
  refund(tenant: string, paymentId: string, failure?: Refusal): Payment;
  partialRefund(tenant: string, paymentId: string, refund: PartialRefund, failure?: Refusal): Payment;
  reversal(tenant: string, paymentId: string): Payment;
  /** Catches up every due event of the tenant's payments (a clock move); returns how many happened. */
  catchUp(tenant: string): number;
}

/** The last event by now: what the payment's `lastEvent` says. */
export function lastEventOf(payment: Payment): PaymentEventType {
  return payment.events[payment.events.length - 1]?.type ?? 'sentForSettlement';
}

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

function notAllowed(action: PaymentAction, why: string): DomainError {
  return new DomainError('actionNotAllowed', `A ${action === 'partialRefund' ? 'partial refund' : action} is not allowed: ${why}`);
}

/** Why the payment's state refuses an action, or undefined when it allows it. */
function refusalOf(payment: Payment, action: PaymentAction): string | undefined {
  switch (payment.settlement) {
    case 'none':
      return 'the sale was refused';
    case 'failed':
      return 'the settlement failed';
    case 'cancelled':
      return 'the payment was cancelled';
    default:
  }
  if (payment.reversed) return 'the payment was reversed';
  if (action === 'reversal' && payment.refundRequested) return 'the payment has been refunded';
  if (action !== 'reversal' && remainingOf(payment) <= 0) return 'nothing remains to refund';
  return undefined;
}

export function createPayments(deps: PaymentsDeps): Payments {
  const { clock, ids, store } = deps;
  const tell = (payment: Payment, event: PaymentEvent): void => deps.onEvent?.(payment, event);

  const newEvent = (payment: Payment, type: PaymentEventType, at: number, amount: number, extra?: Partial<PaymentEvent>): PaymentEvent =>
    extra === undefined ? { seq: ++payment.eventCount, type, at, amount } : { seq: ++payment.eventCount, type, at, amount, ...extra };

  function happen(payment: Payment, event: PaymentEvent): void {
    payment.events.push(event);
    store.changed(payment);
    tell(payment, event);
  }

  function schedule(payment: Payment, event: PaymentEvent): void {
    const scheduled = [...payment.scheduled];
    let i = scheduled.length;
    while (i > 0 && (scheduled[i - 1]?.at ?? 0) > event.at) i--;
    scheduled.splice(i, 0, event);
    payment.scheduled = scheduled;
    store.schedule(payment.tenant, payment.paymentId, event.at);
  }

  /**
   * Moves the events that are due by `now` (their end included) into the history, soonest first (the
   * settlement first of equals); returns how many.
   */
  function catchUpPayment(payment: Payment, now: number): number {
    let n = 0;
    for (;;) {
      const next = payment.scheduled[0];
      const settles = payment.settlesAt;
      if (settles !== undefined && settles <= now && (next === undefined || settles <= next.at)) {
        const event = settlementEventOf(payment) as PaymentEvent;
        payment.settlesAt = undefined;
        payment.settlement = event.type === 'settled' ? 'settled' : 'failed';
        happen(payment, event);
      } else if (next !== undefined && next.at <= now) {
        payment.scheduled = payment.scheduled.length === 1 ? NOTHING_SCHEDULED : payment.scheduled.slice(1);
        if (next.type === 'refundFailed') payment.refunded -= next.amount;
        happen(payment, next);
      } else {
        return n;
      }
      n++;
    }
  }

  function live(tenant: string, paymentId: string): { payment: Payment; now: number } {
    const payment = store.get(tenant, paymentId);
    if (!payment) throw new DomainError('paymentNotFound', 'The payment does not exist');
    const now = clock.now(tenant);
    catchUpPayment(payment, now);
    return { payment, now };
  }

  function check(payment: Payment, action: PaymentAction): void {
    const why = refusalOf(payment, action);
    if (why !== undefined) throw notAllowed(action, why);
  }

  /** Sends an amount for refund now; a scripted failure shows once the settlement delay has passed. */
  function sendForRefund(payment: Payment, now: number, amount: number, reference: string | undefined, scripted: Refusal | undefined): void {
    const extra = reference === undefined ? {} : { reference };
    payment.refunded += amount;
    happen(payment, newEvent(payment, 'sentForRefund', now, amount, extra));
    const failure = scripted ?? payment.script.refundFailure;
    if (failure) {
      schedule(payment, newEvent(payment, 'refundFailed', addDuration(now, deps.settlementDelay), amount, { ...extra, refusal: { ...failure } }));
    }
  }

  return {
    record(tenant, sale) {
      const now = clock.now(tenant);
      const { approved, amount } = sale;
      const script = sale.script ? { ...sale.script } : NO_SCRIPT;
      // Built whole, one shape for every payment, its arrays at their size: a load test keeps many of them.
      const first: PaymentEvent =
        approved || sale.refusal === undefined ? { seq: 1, type: approved ? 'sentForSettlement' : 'refused', at: now, amount } : { seq: 1, type: 'refused', at: now, amount, refusal: { ...sale.refusal } };
      const payment: Payment = {
        tenant,
        paymentId: ids.paymentId(tenant),
        transactionReference: sale.transactionReference,
        entity: sale.entity,
        currency: sale.currency,
        amount,
        createdAt: now,
        origin: sale.origin,
        settlement: approved ? 'pending' : 'none',
        refunded: 0,
        refundRequested: false,
        reversed: false,
        script,
        events: [first],
        // The settlement: `settled` (or the scripted `settlementFailed`) once the delay has passed.
        settlesAt: approved ? addDuration(now, deps.settlementDelay) : undefined,
        scheduled: NOTHING_SCHEDULED,
        eventCount: approved ? SETTLEMENT_SEQ : 1,
      };
      store.put(payment);
      tell(payment, first);
      return payment;
    },

    get: (tenant, paymentId) => live(tenant, paymentId).payment,

    refund(tenant, paymentId, failure) {
      const { payment, now } = live(tenant, paymentId);
      check(payment, 'refund');
      // After partial refunds, a full refund refunds what remains.
      sendForRefund(payment, now, remainingOf(payment), undefined, failure);
      payment.refundRequested = true;
      return payment;
    },

    partialRefund(tenant, paymentId, refund, failure) {
      const { payment, now } = live(tenant, paymentId);
      if (refund.currency !== payment.currency) {
        throw new DomainError('refundCurrencyMismatch', `currency must be the sale's currency, ${payment.currency}`);
      }
      check(payment, 'partialRefund');
      if (refund.amount > remainingOf(payment)) {
        throw notAllowed('partialRefund', `${refund.amount} exceeds the ${remainingOf(payment)} that remains to refund`);
      }
      sendForRefund(payment, now, refund.amount, refund.reference, failure);
      payment.refundRequested = true;
      return payment;
    },

    reversal(tenant, paymentId) {
      const { payment, now } = live(tenant, paymentId);
      check(payment, 'reversal');
      payment.reversed = true;
      if (payment.settlement === 'pending') {
        // Before settlement the sale is cancelled: it will never settle.
        payment.settlement = 'cancelled';
        payment.settlesAt = undefined;
        happen(payment, newEvent(payment, 'cancelled', now, payment.amount));
        return payment;
      }
      // After settlement the money has moved: it goes back as a refund of the whole amount.
      payment.refunded = payment.amount;
      happen(payment, newEvent(payment, 'sentForRefund', now, payment.amount));
      return payment;
    },

    catchUp(tenant) {
      const now = clock.now(tenant);
      let n = 0;
      for (const paymentId of store.due(tenant, now)) {
        const payment = store.get(tenant, paymentId);
        if (payment) n += catchUpPayment(payment, now);
      }
      return n;
    },
  };
}

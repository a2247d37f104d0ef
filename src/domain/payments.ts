/** The payments after the sale: record, read, refund, reverse and catch up by the clock (contract 3.2, decision 0029). */
import { addDuration } from './duration.js';
import { DomainError } from './errors.js';
import {
  SETTLEMENT_SEQ,
  remainingOf,
  settlementEventOf,
  type NewPayment,
  type Payment,
  type PaymentAction,
  type PaymentDraft,
  type PaymentEvent,
  type PaymentEventType,
  type PartialRefund,
  type PaymentScript,
  type Refusal,
} from './payment.js';
import type { Duration } from './duration.js';
import type { Clock, Ids, PaymentStore } from './ports.js';

export interface PaymentsDeps {
  clock: Clock;
  ids: Ids;
  store: PaymentStore;
  /** How long until a sale settles, and until a scripted refund failure shows (`--settlement-delay`). */
  settlementDelay: Duration;
  /** Told of every event as it happens (webhooks); events caused by a clock move are told during the move. */
  onEvent?: (payment: Payment, event: PaymentEvent) => void;
}

const NOTHING_SCHEDULED: readonly PaymentEvent[] = Object.freeze([]);

/** The script of a payment that has none, shared. */
const NO_SCRIPT: PaymentScript = Object.freeze({});

function notAllowed(action: PaymentAction, why: string): DomainError {
  return new DomainError('actionNotAllowed', `A ${action === 'partialRefund' ? 'partial refund' : action} is not allowed: ${why}`);
}

/** Why a settlement that is over allows no action. */
const ENDED: Partial<Record<Payment['settlement'], string>> = { none: 'the sale was refused', failed: 'the settlement failed', cancelled: 'the payment was cancelled' };

/** Why the payment's state refuses an action, or undefined when it allows it. */
function refusalOf(payment: Payment, action: PaymentAction): string | undefined {
  const ended = ENDED[payment.settlement];
  if (ended !== undefined) return ended;
  if (payment.reversed) return 'the payment was reversed';
  if (action === 'reversal' && payment.refundRequested) return 'the payment has been refunded';
  if (action !== 'reversal' && remainingOf(payment) <= 0) return 'nothing remains to refund';
  return undefined;
}

const newEvent = (payment: PaymentDraft, type: PaymentEventType, at: number, amount: number, extra?: Partial<PaymentEvent>): PaymentEvent =>
  extra === undefined ? { seq: ++payment.eventCount, type, at, amount } : { seq: ++payment.eventCount, type, at, amount, ...extra };

function happen(deps: PaymentsDeps, payment: PaymentDraft, event: PaymentEvent): void {
  payment.events.push(event);
  deps.onEvent?.(payment, event);
}

function schedule(payment: PaymentDraft, event: PaymentEvent): void {
  const scheduled = [...payment.scheduled];
  let i = scheduled.length;
  while (i > 0 && (scheduled[i - 1]?.at ?? 0) > event.at) i--;
  scheduled.splice(i, 0, event);
  payment.scheduled = scheduled;
}

/** Whether an event of the payment is due by `now`: only then does catching up change it. */
function isDue(payment: Payment, now: number): boolean {
  const next = payment.scheduled[0];
  return (payment.settlesAt !== undefined && payment.settlesAt <= now) || (next !== undefined && next.at <= now);
}

/** Moves the events due by `now` into the history, soonest first (the settlement first of equals); returns how many. */
function catchUpPayment(deps: PaymentsDeps, payment: PaymentDraft, now: number): number {
  let n = 0;
  for (;;) {
    const next = payment.scheduled[0];
    const settles = payment.settlesAt;
    if (settles !== undefined && settles <= now && (next === undefined || settles <= next.at)) {
      const event = settlementEventOf(payment) as PaymentEvent;
      payment.settlesAt = undefined;
      payment.settlement = event.type === 'settled' ? 'settled' : 'failed';
      happen(deps, payment, event);
    } else if (next !== undefined && next.at <= now) {
      payment.scheduled = payment.scheduled.length === 1 ? NOTHING_SCHEDULED : payment.scheduled.slice(1);
      if (next.type === 'refundFailed') payment.refunded -= next.amount;
      happen(deps, payment, next);
    } else {
      return n;
    }
    n++;
  }
}

/** Catches up a stored payment through its store when an event is due; returns how many happened. */
function catchUpStored(deps: PaymentsDeps, payment: Payment, now: number): number {
  if (!isDue(payment, now)) return 0;
  let n = 0;
  deps.store.update(payment.tenant, payment.paymentId, (draft) => (n = catchUpPayment(deps, draft, now)));
  return n;
}

function live(deps: PaymentsDeps, tenant: string, paymentId: string): { payment: Payment; now: number } {
  const payment = deps.store.get(tenant, paymentId);
  if (!payment) throw new DomainError('paymentNotFound', 'The payment does not exist');
  const now = deps.clock.now(tenant);
  catchUpStored(deps, payment, now);
  return { payment, now };
}

function check(payment: Payment, action: PaymentAction): void {
  const why = refusalOf(payment, action);
  if (why !== undefined) throw notAllowed(action, why);
}

function change(deps: PaymentsDeps, payment: Payment, edit: (draft: PaymentDraft) => void): Payment {
  deps.store.update(payment.tenant, payment.paymentId, edit);
  return payment;
}

/** Sends an amount for refund now; a scripted failure shows once the settlement delay has passed. */
function sendForRefund(deps: PaymentsDeps, payment: PaymentDraft, now: number, refund: { amount: number; reference?: string }, scripted: Refusal | undefined): void {
  const { amount, reference } = refund;
  const extra = reference === undefined ? {} : { reference };
  payment.refunded += amount;
  happen(deps, payment, newEvent(payment, 'sentForRefund', now, amount, extra));
  const failure = scripted ?? payment.script.refundFailure;
  if (failure) {
    schedule(payment, newEvent(payment, 'refundFailed', addDuration(now, deps.settlementDelay), amount, { ...extra, refusal: { ...failure } }));
  }
  payment.refundRequested = true;
}

function reverse(deps: PaymentsDeps, payment: PaymentDraft, now: number): void {
  payment.reversed = true;
  if (payment.settlement === 'pending') {
    // Before settlement the sale is cancelled: it will never settle.
    payment.settlement = 'cancelled';
    payment.settlesAt = undefined;
    happen(deps, payment, newEvent(payment, 'cancelled', now, payment.amount));
    return;
  }
  // After settlement the money has moved: it goes back as a refund of the whole amount.
  payment.refunded = payment.amount;
  happen(deps, payment, newEvent(payment, 'sentForRefund', now, payment.amount));
}

function record(deps: PaymentsDeps, tenant: string, sale: NewPayment): Payment {
  const now = deps.clock.now(tenant);
  const { approved, amount } = sale;
  const script = sale.script ? { ...sale.script } : NO_SCRIPT;
  // Built whole, one shape for every payment, its arrays at their size: a load test keeps many of them.
  const first: PaymentEvent =
    approved || sale.refusal === undefined ? { seq: 1, type: approved ? 'sentForSettlement' : 'refused', at: now, amount } : { seq: 1, type: 'refused', at: now, amount, refusal: { ...sale.refusal } };
  const payment: Payment = {
    tenant,
    paymentId: deps.ids.paymentId(tenant),
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
  deps.store.put(payment);
  deps.onEvent?.(payment, first);
  return payment;
}

export type Payments = ReturnType<typeof createPayments>;

export function createPayments(deps: PaymentsDeps) {
  return {
    /** Records a sale's payment: `sentForSettlement` with its settlement scheduled, or `refused`. */
    record: (tenant: string, sale: NewPayment): Payment => record(deps, tenant, sale),

    /** The payment with its due events caught up; throws `paymentNotFound`. */
    get: (tenant: string, paymentId: string): Payment => live(deps, tenant, paymentId).payment,

    /** Throws `referenceAlreadyUsed` when the tenant already has a payment of this entity with this reference. */
    checkNewReference(tenant: string, entity: string, reference: string): void {
      // A refused sale is a payment, so its reference counts as used; a scripted error or fault made none.
      if (deps.store.byReference(tenant, reference).some((payment) => payment.entity === entity)) {
        throw new DomainError('referenceAlreadyUsed', `transactionReference '${reference}' was already used for a payment of merchant entity '${entity}'`);
      }
    },

    /** The tenant's payments with this transactionReference (any entity), newest first, their due events caught up. */
    withReference(tenant: string, reference: string): Payment[] {
      const now = deps.clock.now(tenant);
      // As `live` does: the store's update changes the stored payment itself.
      return deps.store.byReference(tenant, reference).map((payment) => {
        catchUpStored(deps, payment, now);
        return payment;
      });
    },

    /** `failure` (a scenario on the refund itself) makes this refund fail, whatever the sale's script says. */
    refund(tenant: string, paymentId: string, failure?: Refusal): Payment {
      const { payment, now } = live(deps, tenant, paymentId);
      check(payment, 'refund');
      // After partial refunds, a full refund refunds what remains.
      return change(deps, payment, (draft) => sendForRefund(deps, draft, now, { amount: remainingOf(draft) }, failure));
    },

    partialRefund(tenant: string, paymentId: string, refund: PartialRefund, failure?: Refusal): Payment {
      const { payment, now } = live(deps, tenant, paymentId);
      if (refund.currency !== payment.currency) {
        throw new DomainError('refundCurrencyMismatch', `currency must be the sale's currency, ${payment.currency}`);
      }
      check(payment, 'partialRefund');
      if (refund.amount > remainingOf(payment)) {
        throw notAllowed('partialRefund', `${refund.amount} exceeds the ${remainingOf(payment)} that remains to refund`);
      }
      return change(deps, payment, (draft) => sendForRefund(deps, draft, now, refund, failure));
    },

    reversal(tenant: string, paymentId: string): Payment {
      const { payment, now } = live(deps, tenant, paymentId);
      check(payment, 'reversal');
      return change(deps, payment, (draft) => reverse(deps, draft, now));
    },

    /** Catches up every due event of the tenant's payments (a clock move); returns how many happened. */
    catchUp(tenant: string): number {
      const now = deps.clock.now(tenant);
      let n = 0;
      for (const paymentId of deps.store.due(tenant, now)) {
        const payment = deps.store.get(tenant, paymentId);
        if (payment) n += catchUpStored(deps, payment, now);
      }
      return n;
    },
  };
}

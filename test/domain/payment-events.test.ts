/**
 * The payment's rules in detail: event numbers, the order of events due at once, what each refusal says,
 * and payments as a state file may bring them. (payments.test.ts holds the transitions table.)
 */
import { storedPayment } from '../support/domain.js';
import { describe, expect, it } from '@jest/globals';
import { parseDuration, type Duration } from '../../src/domain/duration.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  PAYMENT_EVENT_TYPES,
  allowedActions,
  lastEventOf,
  scheduledEventsOf,
  settlementEventOf,
  type Payment,
  type PaymentEvent,
  type PaymentScript,
} from '../../src/domain/payment.js';
import { createPayments, type PaymentsDeps } from '../../src/domain/payments.js';
import type { PaymentStore } from '../../src/domain/ports.js';
import { createMemoryPaymentStore } from '../../src/store/memory-payments.js';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const ILLEGAL = { code: '57', description: 'ILLEGAL TRANSACTION' };

interface Options {
  /** When the sale is recorded, epoch ms. */
  start?: number;
  listen?: boolean;
  store?: PaymentStore;
}

function setup({ start = T0, listen = true, store = createMemoryPaymentStore() }: Options = {}) {
  let now = start;
  let n = 0;
  const told: string[] = [];
  const deps: PaymentsDeps = {
    clock: { now: () => now },
    ids: {
      tokenId: () => 'unused',
      authorizationCode: () => 'AUTH01',
      schemeReference: () => 'SCHEME',
      paymentAccountReference: (c) => c,
      paymentId: () => `99${String(++n).padStart(17, '0')}`,
      eventId: (_t, p, seq) => `${p}-${seq}`,
    },
    store,
    settlementDelay: parseDuration('P1D') as Duration,
  };
  if (listen) deps.onEvent = (_p, e) => told.push(`${e.seq} ${e.type}`);
  const payments = createPayments(deps);
  const sale = (amount = 1000, script: PaymentScript = {}, approved = true): string =>
    payments.record('t1', { transactionReference: 'order-1', entity: 'default', currency: 'GBP', amount, approved, script }).paymentId;
  return {
    payments,
    sale,
    store,
    told,
    /** Sets the virtual clock to `start + ms` (backwards too, as the control API may). */
    at: (ms: number) => (now = start + ms),
  };
}

/** The [code, message] of the DomainError `fn` throws; fails the test when it throws nothing. */
function errorOf(fn: () => unknown): [string, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return [err.code, err.message];
    throw err;
  }
  throw new Error('threw nothing');
}

const summary = (events: readonly PaymentEvent[]): string[] => events.map((e) => `${e.seq} ${e.type} +${(e.at - T0) / HOUR}h ${e.amount}${e.reference === undefined ? '' : ` ${e.reference}`}`);

describe('the events of a payment', () => {
  it('numbers them 1 for the sale, 2 for the settlement, then in the order they were made, and keeps them whole', () => {
    const { payments, sale, at } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    payments.partialRefund('t1', id, { amount: 300, currency: 'GBP', reference: 'first' });
    payments.refund('t1', id);
    at(2 * DAY);
    const p = payments.get('t1', id);
    expect(p.events).toStrictEqual([
      { seq: 1, type: 'sentForSettlement', at: T0, amount: 1000 },
      { seq: 3, type: 'sentForRefund', at: T0, amount: 300, reference: 'first' },
      { seq: 5, type: 'sentForRefund', at: T0, amount: 700 },
      // Due at the same instant: the settlement first, then the refund failures in the order they were made.
      { seq: 2, type: 'settled', at: T0 + DAY, amount: 1000 },
      { seq: 4, type: 'refundFailed', at: T0 + DAY, amount: 300, reference: 'first', refusal: { code: '57', description: 'ILLEGAL TRANSACTION' } },
      { seq: 6, type: 'refundFailed', at: T0 + DAY, amount: 700, refusal: { code: '57', description: 'ILLEGAL TRANSACTION' } },
    ]);
    expect(p.eventCount).toBe(6);
    expect(p.refunded).toBe(0);
    expect(p.scheduled).toStrictEqual([]);
  });

  it('numbers a cancelling reversal 3 and a settled reversal’s refund 3', () => {
    const { payments, sale, at } = setup();
    const before = sale();
    const after = sale();
    expect(payments.reversal('t1', before).events.at(-1)).toStrictEqual({ seq: 3, type: 'cancelled', at: T0, amount: 1000 });
    at(DAY);
    expect(payments.reversal('t1', after).events.at(-1)).toStrictEqual({ seq: 3, type: 'sentForRefund', at: T0 + DAY, amount: 1000 });
  });

  it('numbers a refused sale’s only event 1 and the next event of a payment after it 2', () => {
    const { payments, sale } = setup();
    const id = sale(1000, {}, false);
    expect(payments.get('t1', id).events).toStrictEqual([{ seq: 1, type: 'refused', at: T0, amount: 1000 }]);
    expect(payments.get('t1', id).eventCount).toBe(1);
  });

  it('keeps refund failures in time order when the clock was set back between the refunds', () => {
    const { payments, sale, at } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    at(12 * HOUR);
    payments.partialRefund('t1', id, { amount: 100, currency: 'GBP', reference: 'late' });
    at(-6 * HOUR);
    payments.partialRefund('t1', id, { amount: 200, currency: 'GBP', reference: 'early' });
    at(-5 * HOUR);
    payments.partialRefund('t1', id, { amount: 300, currency: 'GBP', reference: 'middle' });
    const pending = payments.get('t1', id);
    expect(summary(scheduledEventsOf(pending))).toStrictEqual([
      '6 refundFailed +18h 200 early',
      '8 refundFailed +19h 300 middle',
      '2 settled +24h 1000',
      '4 refundFailed +36h 100 late',
    ]);
    at(3 * DAY);
    expect(summary(payments.get('t1', id).events)).toStrictEqual([
      '1 sentForSettlement +0h 1000',
      '3 sentForRefund +12h 100 late',
      '5 sentForRefund +-6h 200 early',
      '7 sentForRefund +-5h 300 middle',
      '6 refundFailed +18h 200 early',
      '8 refundFailed +19h 300 middle',
      '2 settled +24h 1000',
      '4 refundFailed +36h 100 late',
    ]);
  });

  it('catches up only what is due, one event at a time, the rest still scheduled', () => {
    const { payments, sale, at } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    at(-6 * HOUR);
    payments.partialRefund('t1', id, { amount: 200, currency: 'GBP', reference: 'a' });
    at(-5 * HOUR);
    payments.partialRefund('t1', id, { amount: 300, currency: 'GBP', reference: 'b' });
    at(18 * HOUR);
    const p = payments.get('t1', id);
    expect(lastEventOf(p)).toBe('refundFailed');
    expect(p.refunded).toBe(300);
    expect(summary(scheduledEventsOf(p))).toStrictEqual(['6 refundFailed +19h 300 b', '2 settled +24h 1000']);
    at(19 * HOUR);
    expect(payments.get('t1', id).refunded).toBe(0);
    expect(summary(scheduledEventsOf(payments.get('t1', id)))).toStrictEqual(['2 settled +24h 1000']);
  });

  it('schedules a refund failure before 1970 like any other', () => {
    const start = Date.UTC(1960, 5, 1);
    const { payments, sale, at } = setup({ start });
    const id = sale(1000, { refundFailure: ILLEGAL });
    payments.partialRefund('t1', id, { amount: 100, currency: 'GBP', reference: 'first' });
    at(-HOUR);
    payments.partialRefund('t1', id, { amount: 200, currency: 'GBP', reference: 'second' });
    at(-2 * HOUR);
    payments.partialRefund('t1', id, { amount: 300, currency: 'GBP', reference: 'third' });
    expect(scheduledEventsOf(payments.get('t1', id)).map((e) => [e.reference ?? e.type, e.at - start])).toStrictEqual([
      ['third', DAY - 2 * HOUR],
      ['second', DAY - HOUR],
      ['settled', DAY],
      ['first', DAY],
    ]);
    at(DAY);
    const p = payments.get('t1', id);
    expect(p.refunded).toBe(0);
    expect(p.events.slice(-4).map((e) => e.reference ?? e.type)).toStrictEqual(['third', 'second', 'settled', 'first']);
  });

  it('works without anyone told of its events', () => {
    const { payments, sale, at } = setup({ listen: false });
    const id = sale(1000, { refundFailure: ILLEGAL });
    payments.refund('t1', id);
    at(DAY);
    expect(payments.catchUp('t1')).toBe(2);
    expect(lastEventOf(payments.get('t1', id))).toBe('refundFailed');
  });

  it('tells each event once, in the order it happens', () => {
    const { payments, sale, at, told } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    payments.refund('t1', id);
    at(DAY);
    payments.catchUp('t1');
    payments.get('t1', id);
    expect(told).toStrictEqual(['1 sentForSettlement', '3 sentForRefund', '2 settled', '4 refundFailed']);
  });
});

describe('the first event of a sale', () => {
  it('keeps a copy of a refused sale’s refusal, and gives an approved sale none', () => {
    const { payments } = setup();
    const refusal = { code: '05', description: 'DO NOT HONOUR' };
    const base = { transactionReference: 'order-1', entity: 'default', currency: 'GBP', amount: 1000 };
    const refused = payments.record('t1', { ...base, approved: false, refusal });
    const approved = payments.record('t1', { ...base, approved: true, refusal });
    expect(refused.events).toStrictEqual([{ seq: 1, type: 'refused', at: T0, amount: 1000, refusal: { code: '05', description: 'DO NOT HONOUR' } }]);
    expect(refused.events[0]?.refusal).not.toBe(refusal);
    expect(approved.events).toStrictEqual([{ seq: 1, type: 'sentForSettlement', at: T0, amount: 1000 }]);
  });
});

describe('catching up a tenant', () => {
  it('answers how many events happened, over all its payments', () => {
    const { payments, sale, at } = setup();
    const a = sale(1000, { refundFailure: ILLEGAL });
    sale(500);
    sale(700, {}, false);
    payments.refund('t1', a);
    expect(payments.catchUp('t1')).toBe(0);
    at(DAY);
    expect(payments.catchUp('t1')).toBe(3);
    expect(payments.catchUp('t1')).toBe(0);
  });

  it('skips a payment the store lists as due but no longer holds (dropped by another process)', () => {
    const memory = createMemoryPaymentStore();
    const store: PaymentStore = { ...memory, due: (tenant, now) => ['9900000000000000999', ...memory.due(tenant, now)] };
    const { payments, sale, at } = setup({ store });
    const id = sale();
    at(DAY);
    expect(payments.catchUp('t1')).toBe(1);
    expect(lastEventOf(payments.get('t1', id))).toBe('settled');
  });
});

describe('the scheduled events of a payment', () => {
  it('holds the pending settlement as event 2, settled or settlementFailed as scripted', () => {
    const { payments, sale } = setup();
    const settles = payments.get('t1', sale());
    const fails = payments.get('t1', sale(1000, { settlementFails: true }));
    expect(settlementEventOf(settles)).toStrictEqual({ seq: 2, type: 'settled', at: T0 + DAY, amount: 1000 });
    expect(scheduledEventsOf(settles)).toStrictEqual([{ seq: 2, type: 'settled', at: T0 + DAY, amount: 1000 }]);
    expect(scheduledEventsOf(fails)).toStrictEqual([{ seq: 2, type: 'settlementFailed', at: T0 + DAY, amount: 1000 }]);
  });

  it('holds no settlement once the payment has settled, was refused or was cancelled', () => {
    const { payments, sale, at } = setup();
    const refused = sale(1000, {}, false);
    const cancelled = sale();
    payments.reversal('t1', cancelled);
    const settled = sale();
    at(DAY);
    for (const id of [refused, cancelled, settled]) {
      const p = payments.get('t1', id);
      expect(settlementEventOf(p)).toBeUndefined();
      expect(scheduledEventsOf(p)).toStrictEqual([]);
    }
  });

  it('holds a refund failure still to come after the settlement', () => {
    const { payments, sale, at } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    at(DAY);
    payments.refund('t1', id);
    expect(scheduledEventsOf(payments.get('t1', id))).toStrictEqual([
      { seq: 4, type: 'refundFailed', at: T0 + 2 * DAY, amount: 1000, refusal: { code: '57', description: 'ILLEGAL TRANSACTION' } },
    ]);
  });

  it('shares one empty schedule among the payments with nothing scheduled, however they got there (memory under load)', () => {
    const { payments, sale, at } = setup();
    const quiet = sale(1000, {}, false);
    const busy = sale(1000, { refundFailure: ILLEGAL });
    payments.refund('t1', busy);
    at(DAY);
    const a = payments.get('t1', quiet).scheduled;
    const b = payments.get('t1', busy).scheduled;
    expect(b).toStrictEqual([]);
    expect(b).toBe(a);
    expect(Object.isFrozen(b)).toBe(true);
  });

  it('puts the settlement first of the events due at the same instant', () => {
    const { payments, sale } = setup();
    const id = sale(1000, { refundFailure: ILLEGAL });
    payments.partialRefund('t1', id, { amount: 10, currency: 'GBP', reference: 'r' });
    expect(scheduledEventsOf(payments.get('t1', id)).map((e) => e.seq)).toStrictEqual([2, 4]);
  });
});

describe('the actions a payment allows', () => {
  it('allows nothing once the whole amount was refunded, before and after settlement', () => {
    const { payments, sale, at } = setup();
    const full = sale();
    payments.refund('t1', full);
    const inParts = sale();
    payments.partialRefund('t1', inParts, { amount: 400, currency: 'GBP', reference: 'a' });
    payments.partialRefund('t1', inParts, { amount: 600, currency: 'GBP', reference: 'b' });
    expect(allowedActions(payments.get('t1', full))).toStrictEqual([]);
    expect(allowedActions(payments.get('t1', inParts))).toStrictEqual([]);
    at(DAY);
    expect(allowedActions(payments.get('t1', full))).toStrictEqual([]);
    expect(allowedActions(payments.get('t1', inParts))).toStrictEqual([]);
  });

  it('allows only a refund of what remains after a partial refund', () => {
    const { payments, sale } = setup();
    const id = sale();
    payments.partialRefund('t1', id, { amount: 999, currency: 'GBP', reference: 'a' });
    expect(allowedActions(payments.get('t1', id))).toStrictEqual(['refund', 'partialRefund']);
  });

  it('allows nothing after a reversal, before or after settlement', () => {
    const { payments, sale, at } = setup();
    const cancelled = sale();
    payments.reversal('t1', cancelled);
    at(DAY);
    const refunded = sale();
    at(2 * DAY);
    payments.reversal('t1', refunded);
    const c = payments.get('t1', cancelled);
    const r = payments.get('t1', refunded);
    expect([c.settlement, c.reversed, c.settlesAt, allowedActions(c)]).toStrictEqual(['cancelled', true, undefined, []]);
    expect([r.settlement, r.reversed, r.refunded, allowedActions(r)]).toStrictEqual(['settled', true, 1000, []]);
  });

  it('allows only a reversal of a sale of amount 0, which cancels it', () => {
    const { payments, sale } = setup();
    const id = sale(0);
    expect(allowedActions(payments.get('t1', id))).toStrictEqual(['reversal']);
    expect(errorOf(() => payments.refund('t1', id))).toStrictEqual(['actionNotAllowed', 'A refund is not allowed: nothing remains to refund']);
    expect(lastEventOf(payments.reversal('t1', id))).toBe('cancelled');
  });
});

type Act = (payments: ReturnType<typeof setup>['payments'], id: string) => unknown;
const refund: Act = (p, id) => p.refund('t1', id);
const partial =
  (amount: number): Act =>
  (p, id) =>
    p.partialRefund('t1', id, { amount, currency: 'GBP', reference: 'r' });
const reversal: Act = (p, id) => p.reversal('t1', id);

/** [name, script, approved, earlier actions, when (ms after the sale), the refused action, its message] */
const refusals: [string, PaymentScript, boolean, Act[], number, Act, string][] = [
  ['a refund of a refused sale', {}, false, [], 0, refund, 'A refund is not allowed: the sale was refused'],
  ['a partial refund of a refused sale', {}, false, [], 0, partial(1), 'A partial refund is not allowed: the sale was refused'],
  ['a reversal of a refused sale', {}, false, [], 0, reversal, 'A reversal is not allowed: the sale was refused'],
  ['a refund after a failed settlement', { settlementFails: true }, true, [], DAY, refund, 'A refund is not allowed: the settlement failed'],
  ['a reversal after a failed settlement', { settlementFails: true }, true, [], DAY, reversal, 'A reversal is not allowed: the settlement failed'],
  ['a refund after a cancelling reversal', {}, true, [reversal], 0, refund, 'A refund is not allowed: the payment was cancelled'],
  ['a reversal after a cancelling reversal', {}, true, [reversal], 0, reversal, 'A reversal is not allowed: the payment was cancelled'],
  ['a refund after a settled reversal', {}, true, [reversal], DAY, refund, 'A refund is not allowed: the payment was reversed'],
  ['a partial refund after a settled reversal', {}, true, [reversal], DAY, partial(1), 'A partial refund is not allowed: the payment was reversed'],
  ['a reversal after a settled reversal', {}, true, [reversal], DAY, reversal, 'A reversal is not allowed: the payment was reversed'],
  ['a reversal after a refund', {}, true, [refund], 0, reversal, 'A reversal is not allowed: the payment has been refunded'],
  ['a reversal after a partial refund', {}, true, [partial(1)], 0, reversal, 'A reversal is not allowed: the payment has been refunded'],
  ['a refund after a full refund', {}, true, [refund], 0, refund, 'A refund is not allowed: nothing remains to refund'],
  ['a partial refund after a full refund', {}, true, [refund], 0, partial(1), 'A partial refund is not allowed: nothing remains to refund'],
  ['a partial refund beyond what remains', {}, true, [partial(600)], 0, partial(401), 'A partial refund is not allowed: 401 exceeds the 400 that remains to refund'],
];

describe('what a refused action says', () => {
  it.each(refusals)('%s', (_name, script, approved, before, later, act, message) => {
    const { payments, sale, at } = setup();
    const id = sale(1000, script, approved);
    // The earlier actions and the refused one happen at `later` (after the settlement when it is DAY).
    at(later);
    for (const step of before) step(payments, id);
    expect(errorOf(() => act(payments, id))).toStrictEqual(['actionNotAllowed', message]);
  });

  it('names the sale’s currency when a partial refund is in another', () => {
    const { payments, sale } = setup();
    const id = sale();
    expect(errorOf(() => payments.partialRefund('t1', id, { amount: 1, currency: 'EUR', reference: 'r' }))).toStrictEqual([
      'refundCurrencyMismatch',
      "currency must be the sale's currency, GBP",
    ]);
  });

  it('says that a payment it does not know does not exist', () => {
    const { payments } = setup();
    expect(errorOf(() => payments.get('t1', '9900000000000000001'))).toStrictEqual(['paymentNotFound', 'The payment does not exist']);
    expect(errorOf(() => payments.reversal('t1', '9900000000000000001'))).toStrictEqual(['paymentNotFound', 'The payment does not exist']);
  });
});

describe('a payment as a state file brings it', () => {
  const restored = (fields: Partial<Payment>): Payment => storedPayment({ createdAt: T0, settlement: 'settled', ...fields });

  it('reads as sentForSettlement while it has no events', () => {
    expect(lastEventOf(restored({ events: [] }))).toBe('sentForSettlement');
  });

  it('gives money back only for a scheduled refund failure, not for another scheduled event', () => {
    const { payments, store, at } = setup();
    store.put(
      restored({
        refunded: 400,
        refundRequested: true,
        eventCount: 4,
        scheduled: [
          { seq: 3, type: 'sentForRefund', at: T0 + HOUR, amount: 400, reference: 'r' },
          { seq: 4, type: 'refundFailed', at: T0 + 2 * HOUR, amount: 100, reference: 'r', refusal: ILLEGAL },
        ],
      }),
    );
    at(HOUR);
    expect(payments.get('t1', '9900000000000000042').refunded).toBe(400);
    at(2 * HOUR);
    const p = payments.get('t1', '9900000000000000042');
    expect(p.refunded).toBe(300);
    expect(p.events.map((e) => e.type)).toStrictEqual(['sentForRefund', 'refundFailed']);
  });
});

describe('the event names', () => {
  it('are the vendor\u2019s seven, in the order a scenario\u2019s `type` lists them', () => {
    expect(PAYMENT_EVENT_TYPES).toEqual(['sentForSettlement', 'settled', 'settlementFailed', 'cancelled', 'sentForRefund', 'refundFailed', 'refused']);
  });
});
